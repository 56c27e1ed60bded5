import Foundation
import Synchronization

/// Google's token and revoke endpoints answered in process, for a server that mounts them
/// on its own routes (`paypulse serve --fake-google`), with the same rules and refusals as
/// ``FakeGoogleServer``; and its RISC transmitter, whose discovery document and key set are
/// answered below the mount point once ``mount(at:)`` names it. No socket of its own, no
/// scripting: an ordinary Google.
package final class FakeGoogleEndpoints: Sendable {
    /// One answer: status, headers and JSON body.
    package struct Answer: Sendable, Equatable {
        /// The HTTP status.
        package var status: Int
        /// The header fields.
        package var headers: [String: String]
        /// The body.
        package var body: String
    }

    /// The client IDs the stand-in knows, the first the one grants are issued to by default.
    package let clientIDs: [String]
    private let backend: FakeGoogleBackend

    /// A stand-in for the clients `clientIDs` (not empty) that knows no grant yet.
    package init(clientIDs: [String]) {
        precondition(!clientIDs.isEmpty, "the stand-in needs a client")
        self.clientIDs = clientIDs
        backend = FakeGoogleBackend(clientIDs: clientIDs)
    }

    /// The RISC side: ``FakeGoogleRISC/send(_:to:audience:)`` signs and pushes one event.
    package var risc: FakeGoogleRISC { backend.risc }

    /// The RISC discovery document's path below the mount point.
    package static let riscConfigurationPath = FakeGoogleRISCKeys.configurationPath

    /// Names where the endpoints are mounted (`http://127.0.0.1:8080/fake-google`): the
    /// transmitter's issuer, and the base of the key set its discovery document names.
    package func mount(at baseURL: String) {
        backend.risc.transmitter.locate(baseURL: baseURL, keySetPath: FakeGoogleRISCKeys.keySetPath)
    }

    /// The refresh token of the grant last added for Google account `subject`, if any.
    package func refreshToken(ofSubject subject: String) -> String? {
        backend.state.withLock { $0.grants.refreshToken(ofSubject: subject) }
    }

    /// Makes `grant` a live grant (see ``FakeGoogleServer/addGrant(refreshToken:scope:rotateTo:account:)``).
    package func addGrant(_ grant: FakeGoogleGrantSpec) {
        backend.state.withLock { $0.grants.add(refreshToken: grant.refreshToken, scope: grant.scope, rotateTo: nil, account: grant.account) }
    }

    /// Answers one request.
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - target: The path below the mount point with its query, e.g. `/token` or `/revoke?token=…`.
    ///   - headers: The header fields, names lowercased.
    ///   - body: The body.
    package func answer(method: String, target: String, headers: [String: String], body: [UInt8]) -> Answer {
        if method == "GET", case .answer(let status, let headers, let body)? = backend.riscKeys.answer(path: target) {
            return Answer(status: status, headers: headers, body: body)
        }
        let request = FakeGoogleRequest(method: method, target: target, headers: headers, body: body)
        let reply = backend.state.withLock { state in
            defer {
                state.depart(request)
                state.requests.removeAll()  // a long-running server keeps no history
            }
            return state.arrive(request).reply
        }
        guard case .answer(let status, let headers, let body) = reply else {
            return Answer(status: 500, headers: FakeGoogleReply.jsonHeaders, body: #"{"error":"internal_failure"}"#)
        }
        return Answer(status: status, headers: headers, body: body)
    }

    /// Refresh tokens presented and refused with `invalid_grant`, in order.
    package var invalidGrantRefreshTokens: [String] { backend.state.withLock { $0.grants.invalidGrantRefreshTokens } }
}
