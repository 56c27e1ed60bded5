import Foundation
import PayPulseTestSupport
import Synchronization

/// Google's security event tokens for the receiver's cells, signed by PyJWT (as in
/// `SecurityEventReceiverTests`) in batches, one Python run per batch rather than per cell,
/// under the keys of the latest batch, which the fake Google publishes as its RISC key set.
///
/// Each token names a Google account no other token does: on Secrets Manager the subject
/// lookup lists every secret on moto, so an account shared between cells would reach the
/// grants of earlier cells and change the call sequence.
final class SecurityEventSigner: Sendable {
    static let issuer = "https://accounts.google.com/"
    static let tokensRevoked = "https://schemas.openid.net/secevent/oauth/event-type/tokens-revoked"
    static let accountPurged = "https://schemas.openid.net/secevent/risc/event-type/account-purged"
    /// The Google account of each cell's bystander grant, which no event names.
    static let bystander = "109000000000000000000"
    static let batchSize = 48

    /// One signed event: the account it names and the token Google would post.
    struct Event: Sendable {
        var subject: String
        var token: String
    }

    /// How long before the cells' clock a late token is issued, in seconds: older than the
    /// grants' proof (the cells' clock) by more than the receiver's leeway.
    static let lateAge = 3600

    private struct State {
        var unused: [String: [Event]] = [:]
        var accounts = 0
    }

    private let google: FakeGoogleServer
    private let audience: String
    private let issuedAt: Date
    private let state = Mutex(State())

    /// Tokens for `audience` (one of our client IDs), issued at `issuedAt`: the cells' clock
    /// is fixed, and a token issued after it would be from the future.
    init(google: FakeGoogleServer, audience: String, issuedAt: Date) {
        self.google = google
        self.audience = audience
        self.issuedAt = issuedAt
    }

    /// A fresh event of `type` about an account of its own, with a `jti` of its own; `late`:
    /// issued ``lateAge`` seconds before the cells' clock.
    func next(_ type: String, late: Bool = false) throws -> Event {
        let batch = late ? type + "#late" : type
        return try state.withLock { state in
            if state.unused[batch, default: []].isEmpty { try sign(type, late: late, as: batch, into: &state) }
            return state.unused[batch]!.removeFirst()
        }
    }

    private func sign(_ type: String, late: Bool, as batch: String, into state: inout State) throws {
        let subjects = (0..<Self.batchSize).map { index in String(format: "10%019d", state.accounts + index + 1) }
        state.accounts += subjects.count
        let iat = Int(issuedAt.timeIntervalSince1970) - (late ? Self.lateAge : 60)
        let signed = try PyJWTIssuer.sign(subjects.map { subject in
            let event: [String: any Sendable] = ["subject": ["subject_type": "iss-sub", "iss": Self.issuer, "sub": subject] as [String: any Sendable]]
            let claims: [String: any Sendable] = [
                "iss": Self.issuer, "aud": audience, "iat": iat, "jti": UUID().uuidString, "events": [type: event] as [String: any Sendable],
            ]
            return PyJWTIssuer.Token(claims: claims, alg: "RS256")
        })
        // Each batch has fresh keys under the same `kid`s, so they replace the last batch's: a
        // cell takes its token before it builds its handler, which fetches the keys afresh.
        google.publishRISCKeys(signed.jwks, issuer: Self.issuer)
        state.unused[batch, default: []] += zip(subjects, signed.tokens).map { Event(subject: $0, token: $1) }
    }
}
