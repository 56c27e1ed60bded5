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
package struct GoogleAccountEvents: Sendable {
    /// What applying one event did.
    package struct Applied: Sendable, Equatable {
        /// The users whose grant changed, in the order they were changed.
        package var changed: [UserID]
        /// Grants found for the account that this event leaves as they are (already in the
        /// state it asks for, or the value names another account now).
        package var unchanged: Int

        /// Creates a result.
        package init(changed: [UserID] = [], unchanged: Int = 0) {
            self.changed = changed
            self.unchanged = unchanged
        }
    }

    let vault: TokenVault
    let recoveryWindowDays: Int
    let now: @Sendable () -> Date

    /// Creates the actions over `vault`.
    /// - Parameter recoveryWindowDays: the recovery window of a purged account's grants, as
    ///   a disconnect's (`DISCONNECT_RECOVERY_DAYS`).
    package init(vault: TokenVault, recoveryWindowDays: Int, now: @escaping @Sendable () -> Date = { Date() }) {
        self.vault = vault
        self.recoveryWindowDays = recoveryWindowDays
        self.now = now
    }

    /// Applies `event` to the grants of the account its subject names. An event that is
    /// not acted on, or whose subject is no Google account, changes nothing.
    /// - Throws: `StoreError` when the store fails or a grant kept changing: the caller
    ///   answers so that Google delivers the event again.
    package func apply(_ event: SecurityEvent, logger: Logger) async throws -> Applied {
        switch event.subject {
        case .googleAccount(let account):
            guard let change = Change(event.type) else { return Applied() }
            let users = try await vault.grants.users(with: .googleSubject, equalTo: account.subject)
            return try await apply(change, to: users, logger: logger) { $0.googleSubject == account.subject }
        case .oauthToken(let token) where event.type == .tokenRevoked:
            guard token.tokenType == nil || token.tokenType == "refresh_token" else { return Applied() }
            guard let digester = try await vault.digester() else {
                logger.warning("token-revoked matches no grant: the client ID secret holds no token_digest_key")
                return Applied()
            }
            guard let digest = digester.digest(of: token) else { return Applied() }
            let users = try await vault.grants.users(with: RefreshTokenDigests.attribute(for: token.identifierAlgorithm), equalTo: digest)
            // The listing only points: the stored token itself must give the digest.
            return try await apply(.revoke, to: users, logger: logger) { set in
                set.refreshToken.map { digester.digests(of: $0)[token.identifierAlgorithm] == digest } ?? false
            }
        default:
            return Applied()
        }
    }

    /// Applies `change` to each of `users` whose stored set still `matches` the event.
    private func apply(
        _ change: Change, to users: [String], logger: Logger, where matches: @Sendable (GmailTokenSet) -> Bool
    ) async throws -> Applied {
        var applied = Applied()
        for raw in users {
            guard let user = UserID(raw) else { continue }
            if try await apply(change, to: user, where: matches) {
                applied.changed.append(user)
                logger.notice("security event applied", metadata: ["user_id": "\(user)", "event": "\(change)"])
            } else {
                applied.unchanged += 1
            }
        }
        return applied
    }

    /// What an event type does to one grant.
    enum Change: String, Sendable {
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

        /// `set` as the event leaves it; `nil` when the event leaves it as it is.
        func applied(to set: GmailTokenSet, at now: Date) -> GmailTokenSet? {
            var changed = set
            switch self {
            case .revoke:
                guard set.status == .active || set.status == .disabled else { return nil }
                changed.status = .revoked
            case .disable:
                guard set.status == .active || set.status == .disabled && !set.verified else { return nil }
                changed.status = .disabled
                changed.verified = true
            case .enable:
                guard set.status == .disabled, set.verified else { return nil }
                changed.verified = false
            case .purge:
                return nil  // not a value change: the grant is deleted
            }
            changed.updatedAt = now
            return changed
        }
    }

    /// Changes one user's grant if its value still `matches` the event; whether it changed.
    private func apply(_ change: Change, to user: UserID, where matches: (GmailTokenSet) -> Bool) async throws -> Bool {
        guard change == .purge else {
            return try await vault.settle(user, where: matches, doing: "a security event was applied") { change.applied(to: $0, at: now()) } == .changed
        }
        // Purged: deleted as a disconnect deletes (its revoked mark rereads on a lost swap).
        guard let stored = try await vault.current(of: user), matches(stored.tokenSet) else { return false }
        do {
            try await vault.disconnect(user, recoveryWindowDays: recoveryWindowDays)
            return true
        } catch let error as StoreError where error == .notFound || error == .scheduledForDeletion {
            return false
        }
    }
}
