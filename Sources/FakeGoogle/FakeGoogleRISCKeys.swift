import Foundation
import Synchronization

/// The transmitter side of Cross-Account Protection as a receiver reads it: the RISC
/// discovery document (`GET /risc/.well-known/risc-configuration`, naming the issuer and
/// `jwks_uri`) and the key set it names (`GET /risc/jwks`). By default they name the fake's
/// own ``FakeGoogleRISCTransmitter`` (its issuer, its key); a test may publish instead the key
/// set of whoever signs its events (PyJWT's, an independent library), so the receiver
/// verifies them over HTTP exactly as it verifies Google's. 404 while the fake does not
/// know its own address.
package final class FakeGoogleRISCKeys: Sendable {
    /// Where the discovery document is served.
    static let configurationPath = "/risc/.well-known/risc-configuration"
    /// Where the key set is served.
    static let keySetPath = "/risc/jwks"

    private struct Published: Sendable {
        var issuer: String
        var keySet: String
        var keySetURL: String
    }

    private let published = Mutex<Published?>(nil)
    private let requests = Mutex<[String]>([])
    private let transmitter: FakeGoogleRISCTransmitter

    init(transmitter: FakeGoogleRISCTransmitter) { self.transmitter = transmitter }

    /// Serves `keySet` (a JWKS document) under `issuer` from now on.
    func publish(keySet: String, issuer: String, keySetURL: String) {
        published.withLock { $0 = Published(issuer: issuer, keySet: keySet, keySetURL: keySetURL) }
    }

    /// The paths fetched, in order (the discovery document's and the key set's).
    package var fetches: [String] { requests.withLock { $0 } }

    /// The answer to `path` when it is one of these documents; `nil` for any other path.
    func answer(path: String) -> FakeGoogleReply? {
        guard path == Self.configurationPath || path == Self.keySetPath else { return nil }
        requests.withLock { $0.append(path) }
        guard let published = published.withLock({ $0 }) ?? own() else {
            return .answer(status: 404, headers: ["Content-Type": "text/html; charset=UTF-8"], body: "<html>Not Found</html>")
        }
        let headers = ["Content-Type": "application/json; charset=utf-8", "Cache-Control": "public, max-age=3600"]
        if path == Self.keySetPath { return .answer(status: 200, headers: headers, body: published.keySet) }
        let document: [String: Any] = ["issuer": published.issuer, "jwks_uri": published.keySetURL]
        let data = (try? JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return .answer(status: 200, headers: headers, body: String(decoding: data, as: UTF8.self))
    }

    /// The transmitter's own documents, once it knows its address.
    private func own() -> Published? {
        guard let issuer = transmitter.issuer, let keySetURL = transmitter.keySetURL, let keySet = try? transmitter.keySet() else { return nil }
        return Published(issuer: issuer, keySet: keySet, keySetURL: keySetURL)
    }
}
