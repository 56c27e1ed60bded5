#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PayPulsePorts

/// What Google's security events do to the grants of the Google account they name: every
/// grant whose stored set has that account's `sub`, each changed through the
/// compare-and-swap like any other write, so a refresh or a reconnect racing the event is
/// never overwritten with a stale set.
///
/// | event | the account's grants |
/// | --- | --- |
/// | `tokens-revoked` | marked `revoked`, as Google's `invalid_grant` does |
/// | `token-revoked` | the grant whose refresh token it names (found by its digest, ``RefreshTokenDigests``) marked `revoked` |
/// | `account-disabled` | marked `disabled`: not connected, not refreshed, refresh token kept |
/// | `account-enabled` | a disabled set marked unverified: the next refresh run asks Google and makes it active again |
/// | `account-purged` | deleted as a disconnect deletes, without calling Google |
/// | `sessions-revoked`, `account-credential-change-required`, `verification`, others | nothing |
///
/// Applying an event again changes nothing more, so a redelivery after a failure (the store
/// down halfway through an account's grants) finishes the work and undoes none of it.
///
/// Google delivers late (a redelivery after our 503, a queue) and in any order, so an event
/// acts only if it is not older than what we know of the grant:
/// - **The last proof wins over an older event.** An event issued (`iat`) more than
///   ``proofLeeway`` before Google last accepted the grant's refresh token (`verified_at`)
///   leaves the grant alone: Google renewed it after the event, so the event describes an
///   earlier state. Within the leeway (clocks differ) the event acts: when in doubt, revoke.
/// - **The latest account event wins.** `account-disabled` and `account-enabled` issued
///   before the latest one applied to the grant (``GmailTokenSet/accountEventAt``) change
///   nothing, so `enabled` then an older `disabled` leaves the account enabled.
/// Such an event is counted as stale (``Applied/stale``), logged, and answered 202 like any other.
package struct GoogleAccountEvents: Sendable {
    /// What applying one event did.
    package struct Applied: Sendable, Equatable {
        /// The users whose grant changed, in the order they were changed.
        package var changed: [UserID]
        /// Grants found for the account that this event leaves as they are (already in the
        /// state it asks for, or the value names another account now).
        package var unchanged: Int
        /// Grants this event leaves as they are because we know something newer: Google
        /// proved the grant, or issued a later account event, after this event's `iat`.
        package var stale: Int

        /// Creates a result.
        package init(changed: [UserID] = [], unchanged: Int = 0, stale: Int = 0) {
            self.changed = changed
            self.unchanged = unchanged
            self.stale = stale
        }
    }

    /// How far before the grant's last proof an event may be issued and still act, in
    /// seconds: the clocks of Google's signer and of our functions may differ by this much.
    package static let proofLeeway: TimeInterval = 60

    let vault: TokenVault
    let recoveryWindowDays: Int
    /// Where Google's word on each account is kept (``remember(_:issuedAt:)``); `nil` keeps none.
    let words: (any GoogleAccountWords)?
    let now: @Sendable () -> Date

    /// Creates the actions over `vault`.
    /// - Parameters:
    ///   - recoveryWindowDays: the recovery window of a purged account's grants, as a
    ///     disconnect's (`DISCONNECT_RECOVERY_DAYS`).
    ///   - words: where the receiver records Google's word on each account before it looks
    ///     for the account's grants.
    package init(
        vault: TokenVault, recoveryWindowDays: Int, words: (any GoogleAccountWords)? = nil, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.vault = vault
        self.recoveryWindowDays = recoveryWindowDays
        self.words = words
        self.now = now
    }

    /// Records what `event` says of its Google account, before anything looks for the
    /// account's grants: a grant a lagging listing hides now, or one whose write is still in
    /// flight, then meets this word when it is written (``TokenVault/honourGoogle(_:written:)``)
    /// or at the next refresh run (``applyWord(of:logger:)``). Events that name no account,
    /// or that do nothing, record nothing.
    /// - Throws: `StoreError` when the record cannot be written: the caller answers so that
    ///   Google delivers the event again.
    package func remember(_ event: SecurityEvent, issuedAt: Date) async throws {
        guard let words, case .googleAccount(let account) = event.subject, let kind = Change.Kind(event.type) else { return }
        try await words.record(kind.word, issuedAt: issuedAt, for: account.subject)
    }

    /// Applies Google's recorded word on `subject` to every grant the listing shows for it:
    /// the refresh run's catch-up for events whose receiver found no grant (``remember(_:issuedAt:)``).
    /// - Throws: `StoreError` when the store or the record fails.
    package func applyWord(of subject: String, logger: Logger) async throws -> Applied {
        guard let words else { return Applied() }
        let word = try await words.word(of: subject)
        let users = try await vault.grants.users(with: .googleSubject, equalTo: subject)
        var applied = Applied()
        for (kind, issuedAt) in word.events {
            let done = try await apply(Change(kind: Change.Kind(kind), issuedAt: issuedAt, reason: kind.reason), to: users, logger: logger) {
                $0.googleSubject == subject
            }
            applied.changed += done.changed
            applied.unchanged += done.unchanged
            applied.stale += done.stale
        }
        return applied
    }

    /// Applies Google's recorded word on the account of `set`, just written for `user`, to
    /// that grant: what a write consults (``TokenVault/honourGoogle(_:written:)``).
    /// - Returns: whether the word changed the grant.
    /// - Throws: `StoreError` when the store or the record fails.
    func applyWord(to user: UserID, written set: GmailTokenSet) async throws -> Bool {
        guard let words, let subject = set.googleSubject else { return false }
        let word = try await words.word(of: subject)
        var changed = false, known = set
        for (kind, issuedAt) in word.events {
            let change = Change(kind: Change.Kind(kind), issuedAt: issuedAt, reason: kind.reason)
            // Judged on the set just written first: a word that leaves it as it is (stale, or
            // an `enabled` on a usable grant) costs no store call.
            guard case .change(let after) = change.verdict(on: known, at: now()) else { continue }
            known = after
            if try await apply(change, to: user, where: { $0.googleSubject == subject }) == .changed { changed = true }
        }
        return changed
    }

    /// Applies `event`, issued by Google at `issuedAt` (the token's `iat`), to the grants of
    /// the account its subject names. An event that is not acted on, or whose subject is no
    /// Google account, changes nothing.
    /// - Throws: `StoreError` when the store fails or a grant kept changing: the caller
    ///   answers so that Google delivers the event again.
    package func apply(_ event: SecurityEvent, issuedAt: Date, logger: Logger) async throws -> Applied {
        switch event.subject {
        case .googleAccount(let account):
            guard let type = Change.Kind(event.type) else { return Applied() }
            let users = try await vault.grants.users(with: .googleSubject, equalTo: account.subject)
            return try await apply(
                Change(kind: type, issuedAt: issuedAt, reason: event.type.lifecycleReason), to: users, tagsRequired: true, logger: logger
            ) { $0.googleSubject == account.subject }
        case .oauthToken(let token) where event.type == .tokenRevoked:
            guard token.tokenType == nil || token.tokenType == "refresh_token" else { return Applied() }
            guard let digester = try await vault.digester() else {
                logger.warning("token-revoked matches no grant: the client ID secret holds no token_digest_key")
                return Applied()
            }
            guard let digest = digester.digest(of: token) else { return Applied() }
            let users = try await vault.grants.users(with: RefreshTokenDigests.attribute(for: token.identifierAlgorithm), equalTo: digest)
            // The listing only points: the stored token itself must give the digest.
            return try await apply(
                Change(kind: .revoke, issuedAt: issuedAt, reason: event.type.lifecycleReason), to: users, tagsRequired: true, logger: logger
            ) { set in
                set.refreshToken.map { digester.digests(of: $0)[token.identifierAlgorithm] == digest } ?? false
            }
        default:
            return Applied()
        }
    }

    /// Applies `change` to each of `users` whose stored set still `matches` the event.
    /// - Parameter tagsRequired: whether a change whose listing tags were refused throws
    ///   (``TokenVault/settle(_:where:tagsRequired:doing:change:)``), for the receiver: its
    ///   202 must not leave a revoked grant listed as connected.
    private func apply(
        _ change: Change, to users: [String], tagsRequired: Bool = false, logger: Logger, where matches: @escaping @Sendable (GmailTokenSet) -> Bool
    ) async throws -> Applied {
        var applied = Applied()
        for raw in users {
            guard let user = UserID(raw) else { continue }
            switch try await apply(change, to: user, tagsRequired: tagsRequired, where: matches) {
            case .changed:
                applied.changed.append(user)
                logger.notice("security event applied", metadata: ["user_id": "\(user)", "event": "\(change.kind)"])
            case .unchanged:
                applied.unchanged += 1
            case .stale:
                applied.stale += 1
                logger.notice(
                    "security event older than what we know of the grant; left as it is",
                    metadata: ["user_id": "\(user)", "event": "\(change.kind)", "iat": "\(RFC3339.string(from: change.issuedAt))"]
                )
            }
        }
        return applied
    }

    /// What one event does to one grant, and when Google issued it.
    struct Change: Sendable {
        /// What an event type does.
        enum Kind: String, Sendable {
            case revoke, disable, enable, purge

            init?(_ type: SecurityEventType) {
                switch type {
                case .tokensRevoked: self = .revoke
                case .accountDisabled: self = .disable
                case .accountEnabled: self = .enable
                case .accountPurged: self = .purge
                case .tokenRevoked, .sessionsRevoked, .accountCredentialChangeRequired, .verification, .other: return nil
                }
            }

            init(_ kind: GoogleAccountWord.Kind) {
                switch kind {
                case .revoked: self = .revoke
                case .disabled: self = .disable
                case .enabled: self = .enable
                case .purged: self = .purge
                }
            }

            /// What Google's word on the account keeps of it.
            var word: GoogleAccountWord.Kind {
                switch self {
                case .revoke: .revoked
                case .disable: .disabled
                case .enable: .enabled
                case .purge: .purged
                }
            }
        }

        /// What the event makes of one stored set.
        enum Verdict: Equatable {
            /// The set as the event leaves it (for a purge, the set as it was: it is deleted).
            case change(GmailTokenSet)
            /// Already as the event asks, or not something it acts on.
            case unchanged
            /// Older than what the set says Google told us since.
            case stale
        }

        var kind: Kind
        var issuedAt: Date
        /// The lifecycle event's reason: the event type, in snake case.
        var reason: String

        /// What the event does to `set`, at `now`.
        func verdict(on set: GmailTokenSet, at now: Date) -> Verdict {
            if let proof = set.verifiedAt, issuedAt < proof.addingTimeInterval(-GoogleAccountEvents.proofLeeway) { return .stale }
            var changed = set
            switch kind {
            case .revoke:
                guard set.status == .active || set.status == .disabled else { return .unchanged }
                changed.status = .revoked
                changed.verified = true  // Google's word: the refresh run does not ask again
            case .disable, .enable:
                if let latest = set.accountEventAt, issuedAt < latest { return .stale }
                // Recorded even when the status stays, so an older event arriving later loses.
                changed.accountEventAt = issuedAt
                if kind == .disable, set.status == .active || set.status == .disabled && !set.verified {
                    changed.status = .disabled
                    changed.verified = true
                } else if kind == .enable, set.status == .disabled, set.verified {
                    changed.verified = false
                }
                guard changed != set else { return .unchanged }
                // Only the record of Google's latest word: the tokens and status did not
                // change, so neither does the write date (nor the tags derived from it).
                if changed.status == set.status, changed.verified == set.verified { return .change(changed) }
            case .purge:
                return .change(set)
            }
            changed.updatedAt = now
            return .change(changed)
        }
    }

    /// How one grant came out of an event.
    enum Outcome {
        case changed, unchanged, stale
    }

    /// Changes one user's grant if its value still `matches` the event and the event is not stale.
    private func apply(
        _ change: Change, to user: UserID, tagsRequired: Bool = false, where matches: @escaping @Sendable (GmailTokenSet) -> Bool
    ) async throws -> Outcome {
        guard change.kind == .purge else {
            var stale = false
            let settled = try await vault.settle(user, where: matches, tagsRequired: tagsRequired, doing: "a security event was applied") { set in
                let verdict = change.verdict(on: set, at: now())
                stale = verdict == .stale  // decided on the set last read
                guard case .change(let changed) = verdict else { return nil }
                // Google's `account-enabled` alone changes no state: `Gmail Enabled` waits
                // for Google to renew the grant (the refresh run asks at once).
                let before = LifecycleEvent.Status(set), after = LifecycleEvent.Status(changed)
                guard before != after else { return changed }
                return vault.recorded(changed, after == .revoked ? .revoked : .disabled, reason: change.reason, user: user, previous: before)
            }
            return settled == .changed ? .changed : stale ? .stale : .unchanged
        }
        // Purged: deleted as a disconnect deletes. The account and the event's age are judged
        // on the very set the mark swaps (rereading after a lost swap), so a switch to another
        // account, or a reconnect Google proved after the event, written meanwhile, stands.
        let clock = now
        let judged: @Sendable (GmailTokenSet) -> Bool = { set in matches(set) && change.verdict(on: set, at: clock()) != .stale }
        do {
            let marked = try await vault.disconnect(
                user, recoveryWindowDays: recoveryWindowDays, event: .purged, reason: change.reason, judging: judged
            )
            if marked { return .changed }
        } catch let error as StoreError where error == .notFound || error == .scheduledForDeletion {
            return .unchanged
        }
        guard let stored = try await vault.current(of: user), matches(stored.tokenSet) else { return .unchanged }
        return change.verdict(on: stored.tokenSet, at: now()) == .stale ? .stale : .unchanged
    }
}

extension GoogleAccountWord.Kind {
    /// The reason a lifecycle event gives when this word acts: the event type's, in snake case.
    var reason: String {
        switch self {
        case .revoked: "tokens_revoked"
        case .disabled: "account_disabled"
        case .enabled: "account_enabled"
        case .purged: "account_purged"
        }
    }
}

extension SecurityEventType {
    /// The reason a lifecycle event gives for this security event: its name in snake case.
    var lifecycleReason: String {
        switch self {
        case .tokensRevoked: "tokens_revoked"
        case .tokenRevoked: "token_revoked"
        case .accountDisabled: "account_disabled"
        case .accountEnabled: "account_enabled"
        case .accountPurged: "account_purged"
        case .sessionsRevoked, .accountCredentialChangeRequired, .verification, .other: "security_event"
        }
    }
}
