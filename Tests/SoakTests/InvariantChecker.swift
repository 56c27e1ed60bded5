import Foundation
import PayPulseDomain

/// What a user's secret holds once the soak is over.
enum FinalState: Sendable {
    /// No secret, or one scheduled for deletion (a disconnect).
    case absent
    /// The current token set and the secret's tags.
    case present(GmailTokenSet, tags: [String: String])
}

/// What the fake Google knows, which the checker needs: which access tokens it issued
/// for which refresh token, and which refresh tokens it answered `invalid_grant`.
struct GoogleFacts: Sendable {
    var issued: @Sendable (_ accessToken: String, _ refreshToken: String) -> Bool
    var invalidGrantRefreshTokens: [String]
}

/// One broken promise, for one user (or for the run as a whole).
struct Violation: Sendable, CustomStringConvertible {
    var user: Int?
    var rule: String
    var detail: String
    var description: String { "\(user.map { "user \($0)" } ?? "run"): \(rule): \(detail)" }
}

/// The soak's invariant, checked per user from the recorded history and the final state.
///
/// Operations overlap, so the order of their effects is known only where one ended before
/// another started (`a.ended < b.started`, monotonic clock): then `a`'s effect is earlier.
/// Let W be the user's store-tokens calls that answered 201 (the seed included) and D the
/// disconnects that answered 200.
///
/// 1. **Absent** (no secret, or scheduled for deletion) is allowed only if some `d` in D was
///    not followed by any `w` in W (no `w` started after `d` ended). So a 201 store-tokens
///    that started after a disconnect ended is never lost to that disconnect.
/// 2. **Present** with token set V: V must come from a *last* store `w` in W: no other `w'`
///    in W started after `w` ended, and no `d` in D started after `w` ended (else `w`'s set
///    was overwritten or deleted). V "comes from" `w` when:
///    - `refresh_token`, `google_email`, `scope` and `token_type` are exactly what `w` sent,
///      and the access token is `w`'s own (then `expires_at - updated_at` is the
///      `expires_in` it sent) or one the fake Google issued for a refresh presenting `w`'s
///      refresh token (then it is Google's 3599 s) — a refresh of exactly that set;
///    - `status` is `active`, or `revoked` only if Google answered `invalid_grant` for
///      `w`'s refresh token.
///    No 201 is lost: a present value from an older 201 (or from no 201 at all) is a
///    violation.
/// 3. **Tags** of a present secret agree with V (`paypulse:status`, `paypulse:refreshable`,
///    `paypulse:expires-at`): the profile and the refresh job decide from them alone.
/// 4. **Revocations**: the refresh runs together reported no more `revoked` grants than
///    Google answered `invalid_grant`.
///
/// The inputs make this exact: every store-tokens sends a token set no other call sends,
/// with an email, and either a refresh token (so the merge keeps nothing of the old set
/// but `connected_at`) or no refresh token and an email never used before (an account
/// switch, which replaces the whole set). A store without a refresh token for the *same*
/// account would keep whichever refresh token was current when it merged, which overlap
/// makes unknowable from outside; that merge rule is covered by DomainTests and
/// HandlerTests instead.
struct InvariantChecker {
    let records: [SoakRecord]
    let google: GoogleFacts

    /// Google's `expires_in` for every refresh (FakeGoogleGrants).
    static let refreshedLifetime = 3599

    func violations(finalStates: [Int: FinalState]) -> [Violation] {
        var violations: [Violation] = []
        let byUser = Dictionary(grouping: records.filter { $0.user != nil }, by: { $0.user! })
        for (user, state) in finalStates.sorted(by: { $0.key < $1.key }) {
            violations += check(user: user, history: byUser[user] ?? [], state: state)
        }
        let reportedRevoked = records.compactMap(\.summary).reduce(0) { $0 + $1.revoked }
        if reportedRevoked > google.invalidGrantRefreshTokens.count {
            violations.append(Violation(
                user: nil, rule: "revoked without invalid_grant",
                detail: "refresh runs reported \(reportedRevoked) revoked, Google answered invalid_grant \(google.invalidGrantRefreshTokens.count) times"
            ))
        }
        return violations
    }

    func check(user: Int, history: [SoakRecord], state: FinalState) -> [Violation] {
        let stores = history.filter(\.isStored)
        let disconnects = history.filter(\.isDisconnected)
        switch state {
        case .absent:
            let explained = disconnects.contains { d in !stores.contains { d.endedBefore($0) } }
            if explained { return [] }
            let latest = stores.max { $0.started < $1.started }
            return [Violation(
                user: user, rule: "lost store-tokens",
                detail: "the secret is absent, but no successful disconnect is after every 201 store-tokens (latest 201: call \(latest?.sent?.call ?? "none"))"
            )]
        case .present(let set, let tags):
            var violations: [Violation] = []
            let last = stores.filter { w in !stores.contains { w.endedBefore($0) } && !disconnects.contains { w.endedBefore($0) } }
            if !last.contains(where: { comesFrom(set, $0.sent!) }) {
                let older = stores.first { comesFrom(set, $0.sent!) }
                // Calls are named, never tokens printed.
                violations.append(Violation(
                    user: user, rule: older == nil ? "unexplained token set" : "superseded token set (a later 201 or 200 disconnect was lost)",
                    detail: "holds \(older.map { "the set of call \($0.sent!.call)" } ?? "a set no 201 sent"), status \(set.status.rawValue); "
                        + "allowed: \(last.isEmpty ? "absent" : last.map { "call " + $0.sent!.call }.joined(separator: ", "))"
                ))
            }
            let expectedTags = TokenSetTags.tags(for: set)
            for (key, value) in expectedTags where tags[key] != value {
                violations.append(Violation(
                    user: user, rule: "tags disagree with the value",
                    detail: "\(key) is \(tags[key] ?? "missing"), the value says \(value)"
                ))
            }
            return violations
        }
    }

    /// Whether `set` is `sent` as stored, or a refresh of exactly it, or either marked
    /// revoked after Google said `invalid_grant`.
    func comesFrom(_ set: GmailTokenSet, _ sent: SentTokens) -> Bool {
        guard set.refreshToken == sent.refreshToken, set.googleEmail == sent.email, set.scope == sent.scope, set.tokenType == "Bearer"
        else { return false }
        let lifetime: Int
        if set.accessToken == sent.accessToken {
            lifetime = sent.expiresIn
        } else if let refreshToken = sent.refreshToken, google.issued(set.accessToken, refreshToken) {
            lifetime = Self.refreshedLifetime
        } else {
            return false
        }
        switch set.status {
        case .active:
            return Int(set.expiresAt.timeIntervalSince(set.updatedAt).rounded()) == lifetime
        case .revoked:
            return sent.refreshToken.map(google.invalidGrantRefreshTokens.contains) ?? false
        case .rejected:
            return false  // the soak's grants are all our client's
        }
    }
}
