import Foundation
import PayPulseTestSupport
import Synchronization

/// Google's security events for the soak, signed before it starts by PyJWT in one run (a
/// process per token would cost more than the functions it feeds) and published as the
/// fake Google's RISC key set. Each user's Google account has its own tokens of each kind;
/// a delivery takes a fresh one, or sends again one already sent, as Google redelivers.
///
/// Their `iat`s are as Google's would be, late and out of order: most are issued within the
/// half minute before ``currentIssuedAhead`` seconds from now (the receiver allows a minute of
/// clock skew ahead), in no particular order across kinds, so an `account-enabled` may be
/// older than the `account-disabled` delivered after it; each user also has one token of
/// each kind an hour old, as a delivery delayed past the reconnects the soak makes, sent on
/// every ``lateEvery``-th delivery (the first included, so even a short run sends one).
final class SoakSecurityEvents: Sendable {
    static let issuer = "https://accounts.google.com/"
    /// Current tokens per user and kind (beside one late token); past them, deliveries are
    /// redeliveries.
    static let perUserAndKind = 4
    /// Every fourth delivery sends a token again; the others take fresh ones, their kinds in
    /// turn, so even a short soak delivers each kind and a duplicate.
    static let redeliveryEvery = 4
    /// How far ahead of the signing the newest `iat` is, in seconds: current for the minute
    /// and more of a phase's proofs (an event older than a grant's last proof by more than a
    /// minute leaves it alone).
    static let currentIssuedAhead = 55
    /// The spread of current tokens' `iat`s below that, in seconds: reordered account events.
    static let currentSpread = 30
    /// How old a late token is, in seconds.
    static let lateAge = 3600
    /// Every fifth delivery (from the first) takes a late token when one of the kind is left.
    static let lateEvery = 5

    private struct Token {
        var user: Int
        var event: SentEvent
        var token: String
    }

    private struct State {
        var fresh: [Int: [Token]] = [:]
        var sent: [Token] = []
        var deliveries = 0
    }

    private let state: Mutex<State>

    /// Signs every token and publishes their key on `google`.
    /// - Parameter audience: our client ID, which Google puts in `aud`.
    init(google: FakeGoogleServer, audience: String, using random: inout some RandomNumberGenerator) throws {
        let now = Int(Date().timeIntervalSince1970)
        var planned: [(user: Int, event: SentEvent)] = []
        for user in 0..<SoakWorkload.userCount {
            for kind in SentEvent.Kind.allCases {
                for index in 0...Self.perUserAndKind {
                    let late = index == Self.perUserAndKind
                    let iat = late ? now - Self.lateAge : now + Self.currentIssuedAhead - Int.random(in: 0..<Self.currentSpread, using: &random)
                    let event = SentEvent(kind: kind, jti: UUID().uuidString, issuedAt: Date(timeIntervalSince1970: Double(iat)), redelivery: false, late: late)
                    planned.append((user, event))
                }
            }
        }
        let signed = try PyJWTIssuer.sign(planned.map { user, event in
            let subject: [String: any Sendable] = ["subject_type": "iss-sub", "iss": Self.issuer, "sub": SoakWorkload.googleSubject(user)]
            let claims: [String: any Sendable] = [
                "iss": Self.issuer, "aud": audience, "iat": Int(event.issuedAt.timeIntervalSince1970), "jti": event.jti,
                "events": [event.kind.rawValue: ["subject": subject] as [String: any Sendable]] as [String: any Sendable],
            ]
            return PyJWTIssuer.Token(claims: claims, alg: "RS256")
        })
        google.publishRISCKeys(signed.jwks, issuer: Self.issuer)
        var state = State()
        for ((user, event), token) in zip(planned, signed.tokens) { state.fresh[user, default: []].append(Token(user: user, event: event, token: token)) }
        self.state = Mutex(state)
    }

    /// The next delivery: a fresh token about `user`'s account, of the kind whose turn it
    /// is (another kind when the user has none of it left), or a token already sent, about
    /// whichever user it names. `nil` when nothing was sent yet and nothing fresh is left.
    func next(for user: Int, using random: inout some RandomNumberGenerator) -> (user: Int, event: SentEvent, token: String)? {
        let pick = Int.random(in: 0..<Int.max, using: &random)
        return state.withLock { state in
            let turn = state.deliveries
            state.deliveries += 1
            let kinds = SentEvent.Kind.allCases
            let wanted = kinds[turn % kinds.count]
            let mine = state.fresh[user] ?? []
            let late = turn % Self.lateEvery == 0
            if turn % Self.redeliveryEvery != Self.redeliveryEvery - 1 || state.sent.isEmpty,
               let index = mine.firstIndex(where: { $0.event.kind == wanted && $0.event.late == late })
                ?? mine.firstIndex(where: { $0.event.kind == wanted }) ?? mine.indices.last {
                let token = state.fresh[user]!.remove(at: index)
                state.sent.append(token)
                return (user, token.event, token.token)
            }
            guard !state.sent.isEmpty else { return nil }
            var token = state.sent[pick % state.sent.count]
            token.event.redelivery = true
            return (token.user, token.event, token.token)
        }
    }
}
