import Foundation
import PayPulseCoding
import PayPulseDomain
import PayPulseFakeGoogle
import PayPulseHandlers
import PayPulsePorts

/// `POST /fake-google/risc/events`: the stand-in Google signs one Cross-Account Protection
/// event and pushes it to this server's own receiver (`/v1/google/security-events`), as
/// Google would, so a developer sees what the app shows after it.
///
/// The body names the event and whom it concerns:
/// `{"type": "account-disabled", "user": "<PayPulse user id>"}` or `{"type": …, "sub": "<Google
/// account id>"}`; `reason` for `account-disabled`; `state` for `verification` (which needs
/// no subject); for `token-revoked`, `token_identifier_alg` (`prefix` or
/// `hash_base64_sha512_sha512`, the default) and the refresh token is the user's stored one,
/// or for a `sub` the one the stand-in last issued to that account. The answer says what
/// happened: the `jti`, each attempt's status and the outcome. Never a token.
struct FakeGoogleRISCEvents: Sendable {
    let google: FakeGoogleEndpoints
    let grants: any GrantStore
    /// This server's receiver.
    let receiver: String

    /// Where the route is, below the stand-in's mount point.
    static let path = "/risc/events"

    /// The answer to one request body.
    func answer(_ body: [UInt8]) async -> Result<[UInt8], APIError> {
        let event: FakeGoogleSecurityEvent
        switch await parse(body) {
        case .success(let made): event = made
        case .failure(let error): return .failure(error)
        }
        let delivery = await google.risc.send(event, to: receiver)
        let attempts: [JSONValue] = delivery.attempts.map { attempt in
            .object(attempt.status.map { ["status": .integer(Int64($0))] } ?? ["failure": .string(attempt.failure ?? "no answer")])
        }
        var answer: [String: JSONValue] = [
            "type": .string(event.type.rawValue), "outcome": .string(delivery.outcome.rawValue), "attempts": .array(attempts),
            "receiver": .string(receiver),
        ]
        answer["jti"] = delivery.jti.map(JSONValue.string)
        answer["receiver_status"] = delivery.attempts.last?.status.map { .integer(Int64($0)) }
        return .success(JSONValue.object(answer).jsonBytes)
    }

    /// The event `body` asks for, or why not.
    private func parse(_ body: [UInt8]) async -> Result<FakeGoogleSecurityEvent, APIError> {
        guard let fields = (try? JSONBodyParser.parse(body))?.objectValue else {
            return .failure(.invalidRequest(#"Send a JSON object such as {"type": "account-disabled", "user": "<user id>"}."#))
        }
        let types = FakeGoogleSecurityEvent.EventType.allCases.map(\.rawValue)
        guard let type = fields["type"]?.stringValue.flatMap(FakeGoogleSecurityEvent.EventType.init(rawValue:)) else {
            return .failure(.invalidRequest("Send type, one of: \(types.joined(separator: ", "))."))
        }
        if type == .verification {
            return .success(.verification(state: fields["state"]?.stringValue ?? ""))
        }
        let algorithmName = fields["token_identifier_alg"]?.stringValue ?? FakeGoogleSecurityEvent.TokenIdentifierAlgorithm.hashBase64SHA512SHA512.rawValue
        guard let algorithm = FakeGoogleSecurityEvent.TokenIdentifierAlgorithm(rawValue: algorithmName) else {
            return .failure(.invalidRequest("token_identifier_alg is prefix or hash_base64_sha512_sha512."))
        }
        let account: (sub: String, refreshToken: String?)
        switch (fields["user"]?.stringValue, fields["sub"]?.stringValue) {
        case (let user?, nil):
            switch await grant(of: user) {
            case .success(let found): account = found
            case .failure(let error): return .failure(error)
            }
        case (nil, let sub?) where !sub.isEmpty:
            account = (sub, type == .tokenRevoked ? google.refreshToken(ofSubject: sub) : nil)
        default:
            return .failure(.invalidRequest("Send either user (a PayPulse user id) or sub (a Google account id), as a string."))
        }
        guard type == .tokenRevoked else {
            return .success(FakeGoogleSecurityEvent(type, subject: .account(sub: account.sub), reason: fields["reason"]?.stringValue))
        }
        guard let refreshToken = account.refreshToken else {
            return .failure(.notFound("token-revoked names a refresh token, and neither the store nor the stand-in Google holds one for that account."))
        }
        return .success(FakeGoogleSecurityEvent(.tokenRevoked, subject: .refreshToken(refreshToken, algorithm: algorithm)))
    }

    /// The Google account and refresh token of `user`'s stored grant.
    private func grant(of user: String) async -> Result<(sub: String, refreshToken: String?), APIError> {
        guard let id = UserID(user) else { return .failure(.invalidRequest("user is not a valid PayPulse user id.")) }
        let set: GmailTokenSet?
        do {
            set = try await TokenVault(grants: grants).current(of: id)?.tokenSet
        } catch {
            return .failure(.upstreamUnavailable)
        }
        guard let set else { return .failure(.notFound("No grant is stored for that user.")) }
        guard let sub = set.googleSubject else {
            return .failure(APIError(status: 409, code: "conflict", message: "That user's grant records no Google account (sub); connect it again."))
        }
        return .success((sub, set.refreshToken))
    }
}
