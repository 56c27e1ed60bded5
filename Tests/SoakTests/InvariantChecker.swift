import Foundation
import PayPulseDomain

/// What a user's secret holds once the soak is over (or when a sample read it).
enum FinalState: Sendable {
    /// No secret, or one scheduled for deletion (a disconnect).
    case absent
    /// The current token set and the secret's tags.
    case present(GmailTokenSet, tags: [String: String])
}

/// One look at a user's secret from outside: the final state, a sample the harness took
/// during the run, or the state after the harness restored a deleted secret.
struct Observation: Sendable {
    var user: Int
    /// When the look began and ended (monotonic): its reads happened in between.
    var started: ContinuousClock.Instant
    var ended: ContinuousClock.Instant
    var state: FinalState
    /// Whether the tags read as connected (what user-profile answers), if they were read.
    var connected: Bool?
}

/// What the fake Google knows, which the checker needs: which access tokens it issued
/// for which refresh token, which refresh tokens it answered `invalid_grant`, and which
/// address it names for a grant.
struct GoogleFacts: Sendable {
    var issued: @Sendable (_ accessToken: String, _ refreshToken: String) -> Bool
    var invalidGrantRefreshTokens: [String]
    /// The address Google's id_token names for the grant of a refresh token; `nil` while
    /// the fake sends no id_token (then a verified set's address is not Google's word).
    var accountEmail: @Sendable (_ refreshToken: String) -> String? = { _ in nil }
}

/// One broken promise, for one user (or for the run as a whole).
struct Violation: Sendable, CustomStringConvertible {
    var user: Int?
    var rule: String
    var detail: String
    var description: String { "\(user.map { "user \($0)" } ?? "run"): \(rule): \(detail)" }
}

/// The soak's invariant, checked per user from the recorded history and each observation
/// of the secret: the final state, the samples taken during the run, and the state after
/// the harness restored a deleted secret (what a reconnect that restores it and then fails
/// leaves behind).
///
/// Operations overlap, so the order of their effects is known only where one ended before
/// another started (`a.ended < b.started`, monotonic clock): then `a`'s effect is earlier.
/// For an observation O, let W be the user's store-tokens calls that wrote (201, or 400
/// overruled by Google's word; the seed included) and D the disconnects that answered 200,
/// both started before O ended (only
/// those can have taken effect). "Surely before O" means ended before O started.
///
/// 1. **Absent** is allowed only if some `d` in D was not followed by any `w` in W that is
///    surely before O. So a 201 store-tokens that started after a disconnect ended is never
///    lost to that disconnect.
/// 2. **Present** with token set V: V must come from a *last* store `w` in W: no `w'` in W
///    and no `d` in D started after `w` ended and ended before O (else `w`'s set was
///    overwritten or deleted). V "comes from" `w` (``comesFrom(_:_:earlier:)``) when its
///    grant and access token are `w`'s: Google's verified answer for the refresh token `w`
///    sent (an access token the fake issued for it, 3599 s), or `w`'s body as sent when
///    Google never saw it (the seed, a body without a refresh token), or a refresh of
///    either; `status` is `active`, or `revoked` only if Google answered `invalid_grant`.
/// 3. **Revoked by a disconnect**: V may also be `w`'s set marked `revoked` when a
///    disconnect (of any outcome) ended after `w` started; if a 200 disconnect surely
///    deleted it, a store-tokens that did not answer 201 (or had not ended) must have
///    restored it since.
/// 4. **Not resurrected**: when a 200 disconnect ended before O and no 201 store-tokens
///    overlapped the time since that disconnect started, O must not read as connected
///    (tags, `connectionState`, or user-profile's `gmail_account_connected`).
/// 5. **Tags** of a present secret agree with V (`paypulse:status`, `paypulse:refreshable`,
///    `paypulse:verified`, `paypulse:lifetime`, and `paypulse:expires-at`, which a refresh
///    renewing only the access token leaves earlier than V's: never later), checked where
///    value and tags are read at rest (the final
///    state, the restored state): the profile and the refresh job decide from them alone.
///    A reconnect that restored a secret tags it `revoked` whatever its value says, so a
///    restored state's tags agree with its value marked revoked.
/// 6. **Revocations**: the refresh runs together reported no more `revoked` grants than
///    Google answered `invalid_grant`, plus one per tokens-revoked event (a refresh that
///    Google's recorded word overrules after its write). A store-tokens of a grant Google
///    already refused must not answer 201.
/// 7. **Security events**, each naming the user's Google account, act on whatever set
///    holds that account when they run, through the compare-and-swap, and their word on
///    the account is recorded first and consulted after every write of a usable set. So
///    (2) also explains V `revoked` by a tokens-revoked delivery E, and V `disabled` by an
///    account-disabled E (unverified only after an account-enabled one too), whenever E
///    ran, as long as E is not older than V's proof (rule 8). A store-tokens the word
///    overruled after its write answered 400; it counts as a store whose set never stays
///    `active`. And **no undone event**: when V comes from `w`
///    and names the account, no disconnect overlapped, and a delivery E that surely acted
///    (202, and no other delivery of its token started before E ended, which could have
///    recorded it first) started after `w` ended and ended before O: V is `revoked` after
///    tokens-revoked; after account-disabled V is not `active` unless an account-enabled
///    delivery ended after E started. A refresh that read the set before E and wrote after
///    it must lose its swap, not write back an active set.
/// 8. **Google's order**: an event issued (`iat`) more than a minute before V's last proof
///    (`verified_at`, which revoking or disabling leaves as it was) explains nothing and is
///    owed nothing (**no grant revoked or disabled by an event older than its proof**);
///    account-disabled and account-enabled are owed only when no event of the other kind
///    was issued later (**the latest account event wins**: V `disabled` and verified after an
///    account-enabled that surely acted and no later-issued account-disabled is a
///    violation). `w` is the latest store V can come from: a reconnect after an event may
///    bring the grant back through Google's proof. A store Google proved nothing at (no
///    refresh token, the seed) keeps the `revoked` or `disabled` of the set it merged over.
/// 9. **A lagging listing** (``listingLags``: the receiver's listing may not show the grant
///    yet): an event rule 7 owes is owed only once a refresh run that catches up on Google's
///    recorded word (the first shard's, or everyone's) started after the delivery ended and
///    ended before O began. The harness makes such a run after the workers stop, so the
///    final state owes every event.
///
/// The inputs make this exact: every store-tokens sends a grant no other call sends, and
/// either a refresh token (Google's answer then replaces the set but `connected_at`, and
/// the address when Google names none) or none and an address never used before. Two
/// things are unknowable from outside and accepted within bounds: a body without a
/// refresh token over a set whose account Google did not name is the same account by the
/// merge rule, so it keeps the stored refresh token (one this user's earlier 201 sent);
/// and a verified set whose account Google did not name keeps the stored address (one this
/// user's earlier 201 stored as sent). DomainTests and HandlerTests cover those rules.
struct InvariantChecker {
    let records: [SoakRecord]
    /// The receiver's listing may not show a grant yet (rule 9).
    var listingLags = false
    let google: GoogleFacts

    /// Google's `expires_in` for every refresh (FakeGoogleGrants).
    static let refreshedLifetime = 3599

    /// Every violation: in `finalStates` (by user), in `samples` taken during the run, in
    /// `restored` (states after a reconnect restored a deleted secret and failed) and in the answers
    /// the processes gave.
    func violations(finalStates: [Int: FinalState], samples: [Observation] = [], restored: [Int: FinalState] = [:]) -> [Violation] {
        var violations: [Violation] = []
        let byUser = Dictionary(grouping: records.filter { $0.user != nil }, by: { $0.user! })
        // After every operation: nothing can overlap the final look.
        let end = (records.map(\.ended).max() ?? .now) + .milliseconds(1)
        for (user, state) in finalStates.sorted(by: { $0.key < $1.key }) {
            let final = Observation(user: user, started: end, ended: end, state: state, connected: state.readsConnected)
            violations += check(final, history: byUser[user] ?? [], atRest: true)
        }
        for sample in samples {
            violations += check(sample, history: byUser[sample.user] ?? [], atRest: false).map {
                Violation(user: $0.user, rule: "\($0.rule) (sampled during the run)", detail: $0.detail)
            }
        }
        for (user, state) in restored.sorted(by: { $0.key < $1.key }) {
            // The harness's reconnect restored it, then answered 409.
            let probe = SoakRecord(function: .storeTokens, user: user, started: end, ended: end + .milliseconds(1), exitStatus: 0, httpStatus: 409)
            let look = Observation(user: user, started: end + .milliseconds(2), ended: end + .milliseconds(2), state: state, connected: state.readsConnected)
            violations += check(look, history: (byUser[user] ?? []) + [probe], atRest: true, restoredByReconnect: true).map {
                Violation(user: $0.user, rule: "\($0.rule) (after a failed reconnect restored it)", detail: $0.detail)
            }
        }
        for profile in records where profile.function == .userProfile && profile.connected == true {
            let user = profile.user!
            violations += resurrection(of: user, during: profile.started, profile.ended, history: byUser[user] ?? [], seenBy: "user-profile \(profile.tag)")
        }
        for store in records where store.overruled {
            // Overruled only by a word Google spoke about the account before the store ended,
            // that revokes or disables, and not an hour old.
            let spoken = records.contains { e in
                (e.isEvent(.tokensRevoked) || e.isEvent(.accountDisabled)) && e.user == store.user && e.event?.late == false && e.started < store.ended
            }
            if !spoken {
                violations.append(Violation(
                    user: store.user, rule: "store overruled without Google's word",
                    detail: "store-tokens \(store.tag) answered 400 for Google's newer word, but no revoking or disabling event came before it ended"
                ))
            }
        }
        for store in records where store.function == .storeTokens && store.sent?.scriptedRevoked == true && store.httpStatus != 400 {
            violations.append(Violation(
                user: store.user, rule: "dead grant not refused",
                detail: "store-tokens \(store.sent!.call) of a grant Google refuses answered \(store.outcome), not 400"
            ))
        }
        // A refresh Google's recorded word overrules after its write (a tokens-revoked issued
        // after Google's answer) counts as revoked too: once per event at most, per account.
        let reportedRevoked = records.compactMap(\.summary).reduce(0) { $0 + $1.revoked }
        let revokingEvents = Set(records.filter { $0.isEvent(.tokensRevoked) }.compactMap { $0.event?.jti }).count
        if reportedRevoked > google.invalidGrantRefreshTokens.count + revokingEvents {
            violations.append(Violation(
                user: nil, rule: "revoked without invalid_grant",
                detail: "refresh runs reported \(reportedRevoked) revoked, Google answered invalid_grant \(google.invalidGrantRefreshTokens.count) times "
                    + "and sent \(revokingEvents) tokens-revoked events"
            ))
        }
        return violations
    }

    /// The rules for one observation. `atRest`: value and tags were read with nothing
    /// running, so the tags must agree with the value. `restoredByReconnect`: a reconnect
    /// restored the secret and failed; it tagged the restored set `revoked` whatever its
    /// value said (a deleted grant was revoked at Google), so the tags must agree with the
    /// value marked revoked.
    func check(_ look: Observation, history: [SoakRecord], atRest: Bool, restoredByReconnect: Bool = false) -> [Violation] {
        let user = look.user
        let stores = history.filter { $0.wrote && $0.started < look.ended }
        let disconnects = history.filter { $0.isDisconnected && $0.started < look.ended }
        let events = history.filter { $0.function == .securityEvents && $0.started < look.ended }
        let surelyBefore = { (record: SoakRecord) in record.ended < look.started }
        var violations = look.connected == true
            ? resurrection(of: user, during: look.started, look.ended, history: history, seenBy: "the harness's read") : []
        switch look.state {
        case .absent:
            let explained = disconnects.contains { d in !stores.contains { d.endedBefore($0) && surelyBefore($0) } }
            if explained { return violations }
            let latest = stores.max { $0.started < $1.started }
            violations.append(Violation(
                user: user, rule: "lost store-tokens",
                detail: "the secret is absent, but no successful disconnect is after every 201 store-tokens (latest 201: call \(latest?.sent?.call ?? "none"))"
            ))
        case .present(let set, let tags):
            let unsuperseded = stores.filter { w in !stores.contains { w.endedBefore($0) && surelyBefore($0) } }
            let last = unsuperseded.filter { w in !disconnects.contains { w.endedBefore($0) && surelyBefore($0) } }
            let fromLast = last.contains { comesFrom(set, $0, earlier: stores, events: events, seenFrom: look.started) }
            if !fromLast && !revokedByDisconnect(set, look: look, candidates: unsuperseded, history: history, stores: stores, disconnects: disconnects) {
                // A last store's set with a status nothing explains is unexplained too.
                let lastSource = last.first { comesFrom(set, $0, earlier: stores, ignoringStatus: true) }
                let older = lastSource ?? stores.first { comesFrom(set, $0, earlier: stores, ignoringStatus: true) }
                // Calls are named, never tokens printed.
                violations.append(Violation(
                    user: user, rule: older == nil || lastSource != nil ? "unexplained token set" : "superseded token set (a later 201 or 200 disconnect was lost)",
                    detail: "holds \(older.map { "the set of call \($0.sent!.call)" } ?? "a set no 201 sent"), status \(set.status.rawValue); "
                        + "allowed: \(last.isEmpty ? "absent" : last.map { "call " + $0.sent!.call }.joined(separator: ", "))"
                ))
            }
            violations += undoneEvent(set, look: look, stores: stores, history: history, events: events)
            guard atRest else { return violations }
            var described = set
            if restoredByReconnect { described.status = .revoked }
            for (key, value) in TokenSetTags.tags(for: described) where tags[key] != value {
                // A refresh that renews only the access token writes no tags: the expiry tag
                // is then earlier than the value's, and the listing reads the true expiry from
                // the write's date and the tagged lifetime. That is agreement, not drift.
                if key == TokenSetTags.expiresAt, TokenSetTags.stillDescribe(tags, described) { continue }
                violations.append(Violation(
                    user: user, rule: "tags disagree with the value",
                    detail: "\(key) is \(tags[key] ?? "missing"), the value says \(value)"
                ))
            }
        }
        return violations
    }

    /// Rule 3: `set` is the set of an unsuperseded `w`, marked revoked by a disconnect,
    /// and still (or again, after a restore) there.
    private func revokedByDisconnect(
        _ set: GmailTokenSet, look: Observation, candidates: [SoakRecord], history: [SoakRecord], stores: [SoakRecord], disconnects: [SoakRecord]
    ) -> Bool {
        guard set.status == .revoked else { return false }
        return candidates.contains { w in
            guard comesFrom(set, w, earlier: stores, ignoringStatus: true),
                  history.contains(where: { $0.function == .disconnect && $0.started < look.ended && $0.ended > w.started })
            else { return false }
            guard let deleted = disconnects.filter({ w.endedBefore($0) && $0.ended < look.started }).max(by: { $0.started < $1.started })
            else { return true }
            return history.contains { f in
                f.function == .storeTokens && (f.httpStatus != 201 || f.ended >= look.started) && f.started < look.ended && f.ended > deleted.started
            }
        }
    }

    /// Rule 7's second half: an event that surely acted on `w`'s set is not undone, and an
    /// older account event does not win over a newer one. `w` is the latest store the set
    /// can come from: a later reconnect may legitimately bring back what an event changed.
    private func undoneEvent(
        _ set: GmailTokenSet, look: Observation, stores: [SoakRecord], history: [SoakRecord], events: [SoakRecord]
    ) -> [Violation] {
        guard set.googleSubject == SoakWorkload.googleSubject(look.user), set.status != .revoked,
              let w = stores.filter({ comesFrom(set, $0, earlier: stores, ignoringStatus: true) }).max(by: { $0.started < $1.started }),
              !history.contains(where: { $0.function == .disconnect && $0.ended > w.started && $0.started < look.ended })
        else { return [] }
        // Over, after the store, first to deliver its token, and not older than the set's
        // last proof (the set's proof can only have moved later since, so this is sure).
        let surelyActed = { (e: SoakRecord) in
            e.httpStatus == 202 && w.ended < e.started && e.ended < look.started && Self.notOlder(e, than: set)
                && !events.contains { $0.event?.jti == e.event?.jti && $0.tag != e.tag && $0.started < e.ended }
                && (!listingLags || caughtUp(after: e, before: look))
        }
        let undone = { (e: SoakRecord, rule: String) in
            Violation(
                user: look.user, rule: rule,
                detail: "\(e.event!.kind) \(e.tag) answered 202 after store-tokens \(w.sent!.call) ended, yet its set reads \(set.status.rawValue)"
                    + (set.verified ? "" : " (unverified)")
                    // What tells the causes apart: the handler's own count, the event's age
                    // against the set's proof, and whether Google was reached at the store.
                    + "; the handler said \(e.handlerSaid ?? "nothing"), iat \(Int64(e.event!.issuedAt.timeIntervalSince1970)), "
                    + "set proved at \(set.provedAtText)"
                    + (w.storedUnverified ? ", the store went in unverified" : "")
            )
        }
        // An account event issued later (by `iat`, whenever delivered) may have won: one of the
        // other kind at the same `iat` or later, or any of either kind later (a merge carries
        // the latest applied `iat` over to the reconnect's set, so an older one changes nothing).
        let overtaken = { (e: SoakRecord, kind: SentEvent.Kind) in
            events.contains { other in
                other.isEvent(kind) && other.event!.issuedAt >= e.event!.issuedAt
                    || (other.isEvent(.accountDisabled) || other.isEvent(.accountEnabled)) && other.event!.issuedAt > e.event!.issuedAt
            }
        }
        if let revoked = events.first(where: { $0.isEvent(.tokensRevoked) && surelyActed($0) }) { return [undone(revoked, "security event undone")] }
        if set.status == .active, let disabled = events.first(where: { $0.isEvent(.accountDisabled) && surelyActed($0) && !overtaken($0, .accountEnabled) }) {
            return [undone(disabled, "security event undone")]
        }
        if set.status == .disabled, set.verified,
           let enabled = events.first(where: { $0.isEvent(.accountEnabled) && surelyActed($0) && !overtaken($0, .accountDisabled) }) {
            return [undone(enabled, "an older account event won over Google's latest")]
        }
        return []
    }

    /// Rule 9: a refresh run that catches up on Google's word started after delivery `e`
    /// ended and ended, successfully, before `look` began.
    private func caughtUp(after e: SoakRecord, before look: Observation) -> Bool {
        records.contains { run in run.catchesUp && run.unexpected == nil && e.ended < run.started && run.ended < look.started }
    }

    /// Whether delivery `e` is not older than `set`'s last proof by more than the receiver's
    /// leeway (an event issued before Google last renewed the grant leaves it alone).
    static func notOlder(_ e: SoakRecord, than set: GmailTokenSet) -> Bool {
        guard let issued = e.event?.issuedAt, let proof = set.verifiedAt else { return true }
        return issued >= proof.addingTimeInterval(-GoogleAccountEvents.proofLeeway)
    }

    /// Rule 4: read as connected between `started` and `ended` although a 200 disconnect
    /// ended before and no 201 store-tokens overlapped the time since it started.
    func resurrection(
        of user: Int, during started: ContinuousClock.Instant, _ ended: ContinuousClock.Instant, history: [SoakRecord], seenBy: String
    ) -> [Violation] {
        let stores = history.filter(\.wrote)
        let settled = history.filter { d in
            d.isDisconnected && d.ended < started && !stores.contains { $0.ended > d.started && $0.started < ended }
        }
        guard let disconnect = settled.max(by: { $0.ended < $1.ended }) else { return [] }
        let failedSince = history.filter { $0.function == .storeTokens && !$0.isStored && $0.ended > disconnect.started && $0.started < ended }
        return [Violation(
            user: user, rule: "resurrected disconnected set",
            detail: "\(seenBy) reads connected, but disconnect \(disconnect.tag) answered 200 before it and no 201 store-tokens came since; "
                + "store-tokens since: \(failedSince.isEmpty ? "none" : failedSince.map { "\($0.tag) (\($0.outcome))" }.joined(separator: ", "))"
        )]
    }

    /// Whether `set` is what the 201 store `w` stored, or a refresh of it, or either marked
    /// revoked after Google said `invalid_grant` (with `ignoringStatus`, whatever its status).
    /// `seenFrom`: when the look at `set` began. `earlier`: the user's 201 stores, of which those started before `w` ended may have
    /// left a refresh token or address that `w`'s merge kept. `events`: the user's security
    /// event deliveries, which explain a revoked or disabled status when they ended after
    /// `w` started (rule 7).
    func comesFrom(
        _ set: GmailTokenSet, _ w: SoakRecord, earlier: [SoakRecord], events: [SoakRecord] = [], ignoringStatus: Bool = false,
        seenFrom: ContinuousClock.Instant? = nil
    ) -> Bool {
        guard let sent = w.sent, set.scope == sent.scope, set.tokenType == "Bearer" else { return false }
        let before = earlier.filter { $0.started < w.ended && $0.sent != nil }.map { $0.sent! }
        let grant: String?
        if set.refreshToken == sent.refreshToken {
            grant = sent.refreshToken
        } else if sent.refreshToken == nil, let kept = set.refreshToken,
                  before.contains(where: { $0.refreshToken == kept && !$0.storedAsSent }) {
            grant = kept  // merged over a set whose account Google did not name: the same account
        } else {
            return false
        }
        // A refresh token the store showed Google is stored as Google answered.
        let verifiedAtStore = sent.refreshToken != nil && !sent.storedAsSent
        let googleEmail = grant.flatMap(google.accountEmail)
        let emailOK: Bool
        let lifetime: Int
        if set.accessToken == sent.accessToken && !verifiedAtStore {
            emailOK = set.googleEmail == sent.email
            lifetime = sent.expiresIn
        } else if let grant, google.issued(set.accessToken, grant) {
            if verifiedAtStore {
                // Google's address; when it names none (no id_token), the one sent as a hint.
                emailOK = set.googleEmail == (googleEmail ?? sent.email)
            } else {
                emailOK = set.googleEmail == sent.email || (googleEmail != nil && set.googleEmail == googleEmail)
            }
            lifetime = Self.refreshedLifetime
        } else {
            return false
        }
        guard emailOK else { return false }
        if ignoringStatus { return true }
        // Google's word is recorded before any grant is looked for and consulted after every
        // write, so any delivery not older than the set's last proof explains it, whenever
        // it ran; none older than that revokes or disables a grant.
        let actedAfter = { (kind: SentEvent.Kind) in
            events.contains { e in e.isEvent(kind) && Self.notOlder(e, than: set) }
        }
        // A store Google proved nothing at (no refresh token, or the seed) keeps the status of
        // a refused or disabled grant it merged over: an event or a refusal before it ended.
        let carried = { (kind: SentEvent.Kind) in
            sent.storedAsSent && events.contains { $0.isEvent(kind) && $0.started < w.ended }
        }
        switch set.status {
        case .active:
            // A store Google's word overruled answered 400: its set is active only between its
            // write and its reading of the word, while the store runs, or once Google enabled
            // the account it disabled again (and a refresh proved the grant).
            let enabledSince = w.overruledTo == "disabled" && events.contains { $0.isEvent(.accountEnabled) && $0.ended > w.started }
            guard !w.overruled || enabledSince || seenFrom.map({ $0 < w.ended }) == true else { return false }
            return Int(set.expiresAt.timeIntervalSince(set.updatedAt).rounded()) == lifetime
        case .revoked:
            return (grant.map(google.invalidGrantRefreshTokens.contains) ?? false) || actedAfter(.tokensRevoked) || carried(.tokensRevoked)
                || sent.storedAsSent && before.contains { $0.refreshToken.map(google.invalidGrantRefreshTokens.contains) ?? false }
        case .rejected:
            return false  // the soak's grants are all our client's
        case .disabled:
            return actedAfter(.accountDisabled) && (set.verified || actedAfter(.accountEnabled)) || carried(.accountDisabled)
        }
    }
}

extension FinalState {
    /// What user-profile would answer from these tags (``TokenVault/connectionState(of:)``):
    /// a live secret whose status tag is neither revoked, rejected nor disabled.
    var readsConnected: Bool {
        guard case .present(_, let tags) = self else { return false }
        return Self.readsConnected(tags: tags)
    }

    /// Whether a live secret with these tags reads as connected.
    static func readsConnected(tags: [String: String]) -> Bool {
        let status = tags[TokenSetTags.status]
        return status != GmailTokenSet.Status.revoked.rawValue && status != GmailTokenSet.Status.rejected.rawValue
            && status != GmailTokenSet.Status.disabled.rawValue
    }
}
