#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PayPulsePorts

/// Refreshes one user's grant at Google and writes it back by compare-and-swap; the backend
/// twin of the iOS SDK's `refreshTokensIfNeeded`. Used by the scheduled job and by any code
/// that needs a fresh access token.
package struct TokenRefresher: Sendable {
    /// The write-rate permits one compare-and-swap write takes: one call against the
    /// store's write quota (a `PutSecretValue` on Secrets Manager, an `UpdateItem` on DynamoDB).
    package static let permitsPerWrite = 1

    /// What a refresh did to one grant.
    package enum Outcome: Sendable, Equatable {
        /// A new access token is stored.
        case refreshed(GmailTokenSet)
        /// Newer tokens were stored meanwhile; ours were dropped and theirs kept.
        case conflict
        /// Google said `invalid_grant`: the set is marked revoked (refresh token kept).
        case revoked
        /// Google refused the refresh token as another OAuth client's (our client being
        /// healthy): the set is marked rejected and left alone until the user reconnects.
        case rejected
        /// Google or the store failed for now; nothing was changed.
        case transientFailure(String)
        /// Nothing to do: not due, already revoked, no refresh token, or not stored.
        case skipped(String)
    }

    /// A failure that must stop the run: our own OAuth client or configuration is broken
    /// (`deleted_client`, a client ID Google refuses, an unusable endpoint).
    package struct ConfigurationFailure: Error, Sendable, CustomStringConvertible {
        /// What is wrong, naming what to fix.
        package let description: String
    }

    /// The caller asked for a fresh token it cannot have.
    package enum FreshTokenError: Error, Sendable, Equatable {
        /// No Gmail connection is stored.
        case notConnected
        /// The grant is dead; the user must consent again.
        case revoked
        /// The grant was issued to another OAuth client; the user must connect again.
        case rejected
        /// Google disabled the Google account; no token until it enables it again.
        case disabled
        /// Google or the store failed for now.
        case unavailable
    }

    let vault: TokenVault
    let google: any GoogleOAuth
    /// Our OAuth clients, asked for only when a refresh is about to happen.
    let clients: @Sendable () async throws -> GoogleClients
    let windowSeconds: Int
    /// In keep-alive mode, the age of the last verification that makes a grant due.
    let keepAliveSeconds: Int?
    let limiter: WriteRateLimiter?
    let health: OAuthClientHealth
    let now: @Sendable () -> Date

    /// Creates a refresher.
    /// - Parameters:
    ///   - windowSeconds: sets expiring within this many seconds count as due.
    ///   - limiter: paces the writes (each compare-and-swap takes ``permitsPerWrite``).
    ///   - health: tells a foreign grant from a broken client of ours; by default one of its
    ///     own, so a run probes Google at most once however many grants are foreign.
    package init(
        vault: TokenVault, google: any GoogleOAuth, clients: GoogleClients, windowSeconds: Int, keepAliveSeconds: Int? = nil,
        limiter: WriteRateLimiter? = nil, health: OAuthClientHealth? = nil, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.init(
            vault: vault, google: google, clients: { clients }, windowSeconds: windowSeconds, keepAliveSeconds: keepAliveSeconds,
            limiter: limiter, health: health, now: now
        )
    }

    /// Creates a refresher that asks for the clients only when it refreshes (a cache in a
    /// long-lived process; a missing client ID secret then fails the refresh, not every read).
    package init(
        vault: TokenVault, google: any GoogleOAuth, clients: @escaping @Sendable () async throws -> GoogleClients, windowSeconds: Int,
        keepAliveSeconds: Int? = nil, limiter: WriteRateLimiter? = nil, health: OAuthClientHealth? = nil,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.vault = vault
        self.google = google
        self.clients = clients
        self.windowSeconds = windowSeconds
        self.keepAliveSeconds = keepAliveSeconds
        self.limiter = limiter
        self.health = health ?? OAuthClientHealth(google: google)
        self.now = now
    }

    /// Refreshes `user`'s grant if the stored value (the authority, whatever the listing
    /// said) is due or still unverified, or always when `force`. Due means expiring within
    /// the window; with a keep-alive interval, verified longer ago than that instead.
    /// - Parameters:
    ///   - listedTags: the tags a listing showed for the set; when the value read disagrees
    ///     with them and nothing is written, they are rewritten from the value.
    ///   - listingStale: whether the listing showed those tags stamped for another version
    ///     (``TokenSetTags/needRewriting(_:)``): they are then rewritten from the value even
    ///     where they seem to agree, and never kept by a refresh.
    ///   - sweepBudget: how long the outbox's sweep (events a failed put left) may publish
    ///     first, each put within ``LifecyclePublisher/sweepBudget``: the refresh run's own
    ///     (``LifecyclePublisher/grantSweepBudget``, within its deadline); a request's short
    ///     attempt unless given.
    /// - Throws: ``ConfigurationFailure`` when Google refuses our own client; never for one
    ///   grant's trouble (dead, another client's, Google unavailable), which is an ``Outcome``.
    package func refreshIfDue(
        _ user: UserID, force: Bool = false, listedTags: [String: String]? = nil, listingStale: Bool = false, sweepBudget: Duration? = nil,
        logger: Logger
    ) async throws(ConfigurationFailure) -> Outcome {
        try await refresh(
            user, when: force ? .always : keepAliveSeconds.map { .idleFor($0) } ?? .expiring, listedTags: listedTags, listingStale: listingStale,
            sweep: sweepBudget ?? vault.events?.requestBudget, logger: logger
        )
    }

    /// When a stored, verified set is refreshed.
    enum DueRule {
        case always
        /// Its access token expires within the window.
        case expiring
        /// Its last verification is at least this many seconds old.
        case idleFor(Int)
    }

    private func isDue(_ set: GmailTokenSet, _ rule: DueRule) -> Bool {
        switch rule {
        case .always: true
        case .expiring: set.expiresAt <= now().addingTimeInterval(Double(windowSeconds))
        case .idleFor(let seconds): (set.verifiedAt ?? .distantPast) <= now().addingTimeInterval(-Double(seconds))
        }
    }

    /// - Parameters:
    ///   - read: the set as just read, when the caller has it (no second read).
    ///   - sweep: how long pending events may be published first; `nil` publishes none
    ///     (fresh-token published them already).
    ///   - consultsGoogle: whether Google's word on the account is read after the write
    ///     (``TokenVault/honourGoogle(_:written:)``); fresh-token reads it before instead.
    private func refresh(
        _ user: UserID, when rule: DueRule, listedTags: [String: String]?, listingStale: Bool = false, read: TokenVault.Stored? = nil,
        sweep: Duration? = nil, consultsGoogle: Bool = true, logger: Logger
    ) async throws(ConfigurationFailure) -> Outcome {
        var listedTags = listedTags, listingStale = listingStale
        var stored: TokenVault.Stored
        if let read {
            stored = read
        } else {
            do {
                guard let current = try await vault.current(of: user) else { return .skipped("not stored") }
                stored = current
            } catch {
                return .transientFailure("read: \(error)")
            }
        }
        // The outbox's sweep: events a failed put left are published before anything else.
        if let sweep, sweep > .zero, stored.tokenSet.lifecycle?.hasWork == true, vault.events != nil {
            let swept = await vault.publishPending(of: user, stored.tokenSet, version: stored.version, within: sweep, eachPut: vault.events?.sweepBudget)
            do {
                guard let current = try await vault.current(of: user) else { return .skipped("disconnected meanwhile") }
                // The sweep's clearing write tagged the value anew: the listing's tags are past.
                if swept == current.version, current.version != stored.version { (listedTags, listingStale) = (nil, false) }
                stored = current
            } catch {
                return .transientFailure("read: \(error)")
            }
        }
        let set = stored.tokenSet
        let skip = { [listedTags, listingStale] (reason: String) async -> Outcome in
            await repairTags(of: user, from: set, version: stored.version, listed: listedTags, stale: listingStale, logger: logger)
            return .skipped(reason)
        }
        // A set that is not active is asked about only while unverified: a disabled account
        // Google says it enabled, or a reconnect over a refused or disabled grant that Google
        // could not check at the time. Google's answer is then final either way.
        guard set.status == .active || !set.verified else { return await skip(set.status.rawValue) }
        guard let refreshToken = set.refreshToken, !refreshToken.isEmpty else { return await skip("no refresh token") }
        guard !set.verified || isDue(set, rule) else {
            // A grant stored before the deployment had a digest key gets its digests now (the
            // vault stamps every write), so Google's `token-revoked` can find it.
            if set.refreshTokenDigests == nil, (try? await vault.digester()) != nil {
                return await write(set, user: user, expected: stored.version, success: .skipped("digests stamped"), logger: logger)
            }
            return await skip("not due")
        }

        let clients: GoogleClients
        do {
            clients = try await self.clients()
        } catch {
            throw ConfigurationFailure(description: "cannot read the Google client IDs: \(error)")
        }
        // A verified set is renewed with the client that holds it; an unverified one is
        // proved as a connect proves it, with each client in turn.
        let candidates: [String]
        if set.verified {
            let own = set.googleClientID ?? clients.defaultID
            guard clients.contains(own) else {
                // Not marked rejected: a client dropped from the list by mistake must not
                // cost its users their grants. The run reports it until the list is fixed.
                // The client ID stays out of the log, as the client ID secret's value does;
                // the grant's paypulse:client tag names it.
                logger.warning("the grant's OAuth client is not in the client list; not refreshed", metadata: ["user_id": "\(user)"])
                return .transientFailure("the grant's OAuth client is not in the client list (its paypulse:client tag names it)")
            }
            candidates = [own]
        } else {
            candidates = clients.trialOrder(preferring: set.googleClientID)
        }
        let grant: GoogleRefreshAnswer, clientID: String
        switch await ClientTrial.refresh(refreshToken, candidates: candidates, google: google, health: health) {
        case .accepted(let answer, let accepting):
            (grant, clientID) = (answer, accepting)
        case .refused(.dead, let cause):
            logger.notice("grant refused by Google: marking revoked", metadata: ["user_id": "\(user)", "google": "\(cause?.description ?? "")"])
            return await mark(set, .revoked, reason: "invalid_grant", user: user, expected: stored.version, success: .revoked, logger: logger)
        case .refused(.foreign, let cause):
            logger.notice("grant issued to another OAuth client: marking rejected", metadata: ["user_id": "\(user)", "google": "\(cause?.description ?? "")"])
            return await mark(set, .rejected, reason: "unauthorized_client", user: user, expected: stored.version, success: .rejected, logger: logger)
        case .refused(.ourClient(let reason), _):
            throw ConfigurationFailure(description: "\(reason); check the client ID secret and the Google endpoints")
        case .refused(.undecided(let reason), _):
            await noteFailing(user, set, version: stored.version)
            return .transientFailure("google: \(reason)")
        }

        let refreshedAt = now()
        var renewed = set
        renewed.accessToken = grant.accessToken
        renewed.tokenType = grant.tokenType
        renewed.expiresAt = refreshedAt.addingTimeInterval(Double(grant.expiresIn))
        renewed.scope = grant.scope ?? set.scope
        renewed.refreshToken = grant.refreshToken ?? refreshToken
        renewed.updatedAt = refreshedAt
        renewed.status = .active
        renewed.verified = true
        renewed.verifiedAt = refreshedAt
        renewed.googleClientID = clientID
        if let identity = grant.identity {
            if identity.isIssued(to: clientID) {
                // The account's address can change; its subject cannot.
                renewed.googleSubject = identity.subject
                renewed.googleEmail = identity.email ?? set.googleEmail
                renewed.emailVerified = identity.emailVerified ?? set.emailVerified
            } else {
                logger.warning("Google's id_token names another audience; identity left as stored", metadata: ["user_id": "\(user)"])
            }
        }
        renewed.lifecycle?.failingSince = nil
        // Google renewed a grant it had disabled or refused: the account is usable again.
        if set.status != .active {
            renewed = set.status == .disabled
                ? vault.recorded(renewed, .enabled, reason: "account_enabled", user: user, previous: .init(set))
                : vault.recorded(renewed, .reconnected, reason: "user_reconnected", user: user, previous: .init(set))
        }
        // The tags the replaced version carries: the listing's when it agrees with the value
        // read, else none known (then the write tags).
        // Tags stamped for another version say nothing sure of this one: the write tags.
        let tagged = listingStale ? nil : listedTags.map { TokenSetTags.stillDescribe($0, set) ? $0 : nil } ?? TokenSetTags.tags(for: set)
        let outcome = await write(renewed, user: user, expected: stored.version, tagged: tagged, success: .refreshed(renewed), logger: logger)
        guard consultsGoogle, case .refreshed = outcome else { return outcome }
        return await honouringGoogle(outcome, user: user, written: renewed, logger: logger)
    }

    /// `outcome`, a refresh written as `renewed`, unless Google's word on the account, read
    /// after the write, overrules it (an event issued after Google answered this refresh).
    private func honouringGoogle(_ outcome: Outcome, user: UserID, written renewed: GmailTokenSet, logger: Logger) async -> Outcome {
        do {
            try await vault.honourGoogle(user, written: renewed)
            return outcome
        } catch let overruled as GoogleWordOverruled {
            logger.notice("Google's recorded word overrules the refresh just written", metadata: [
                "user_id": "\(user)", "status": "\(overruled.status?.rawValue ?? "deleted")",
            ])
            return overruled.status == .revoked ? .revoked : .skipped("Google's word: \(overruled.status?.rawValue ?? "purged")")
        } catch {
            // The refresh stands; the next run's catch-up applies the word (RefreshJob).
            logger.error("Google's word on the account could not be read after a refresh", metadata: ["user_id": "\(user)", "error": "\(error)"])
            return outcome
        }
    }

    /// A write whose value landed but whose tagging failed leaves tags that say what the
    /// value no longer does ("due" forever, or revoked over a reconnect, nothing pending over
    /// a pending event): they are rewritten from the value, stamped with its version. Best
    /// effort: a failure here changes nothing, and the stale stamp brings the next run back.
    private func repairTags(
        of user: UserID, from set: GmailTokenSet, version: GrantVersion, listed: [String: String]?, stale: Bool, logger: Logger
    ) async {
        guard let listed, stale || !TokenSetTags.stillDescribe(listed, set) else { return }
        do {
            try await vault.retag(set, of: user, version: version)
            logger.info("listing tags repaired from the stored value", metadata: ["user_id": "\(user)"])
        } catch {
            logger.warning("listing tags not repaired; next run tries again", metadata: ["user_id": "\(user)", "error": "\(error)"])
        }
    }

    /// The set marked `status`, refresh token kept (the user may want to see what it was).
    private func mark(
        _ set: GmailTokenSet, _ status: GmailTokenSet.Status, reason: String, user: UserID, expected: GrantVersion, success: Outcome, logger: Logger
    ) async -> Outcome {
        var marked = set
        marked.status = status
        marked.verified = true  // Google's word: not asked again
        marked.updatedAt = now()
        marked.lifecycle?.failingSince = nil
        if marked.status != set.status { marked = vault.recorded(marked, .revoked, reason: reason, user: user, previous: .init(set)) }
        return await write(marked, user: user, expected: expected, success: success, logger: logger)
    }

    /// A refresh failed for now: the first failure of a spell is recorded in the outbox, and
    /// once the spell outlasts the publisher's span, `Gmail Refresh Failing` (once a spell).
    /// Best effort, and only with a bus: a lost swap or a failed write is left to the next run.
    private func noteFailing(_ user: UserID, _ set: GmailTokenSet, version: GrantVersion) async {
        guard let events = vault.events, set.status == .active else { return }
        var noted = set
        let instant = now()
        if let since = set.lifecycle?.failingSince {
            guard instant.timeIntervalSince(since) >= events.failingSpan, set.lifecycle?.failingReported == false else { return }
            noted = vault.recorded(set, .refreshFailing, reason: "refresh_failing", user: user, previous: .init(set))
            noted.lifecycle?.failingReported = true
        } else {
            if noted.lifecycle == nil { noted.lifecycle = LifecycleOutbox() }
            noted.lifecycle?.failingSince = instant
        }
        _ = try? await vault.replace(noted, of: user, expected: version)
    }

    private func write(
        _ set: GmailTokenSet, user: UserID, expected: GrantVersion, tagged: [String: String]? = nil, success: Outcome, logger: Logger
    ) async -> Outcome {
        do {
            try await limiter?.acquire(Self.permitsPerWrite)
            try await vault.replace(set, of: user, expected: expected, tagged: tagged)
            return success
        } catch let error as StoreError where error == .conflict {
            logger.info("refresh lost to newer tokens; keeping them", metadata: ["user_id": "\(user)"])
            return .conflict
        } catch let error as StoreError where error == .scheduledForDeletion || error == .notFound {
            return .skipped("disconnected meanwhile")
        } catch {
            return .transientFailure("write: \(error)")
        }
    }

    /// How long a token Google has just issued is shared by every caller, whatever the
    /// window: with `REFRESH_WINDOW_SECONDS` at or above Google's token lifetime a new token
    /// is due the moment it is written, and callers racing one refresh (in other processes,
    /// or the compare-and-swap loser rereading) would each refresh again.
    static let sharedRefreshSeconds: TimeInterval = 60

    /// Whether `set` was confirmed by Google within ``sharedRefreshSeconds`` and its access
    /// token outlives that span: a concurrent caller's refresh, to be reused.
    private func isJustRefreshed(_ set: GmailTokenSet) -> Bool {
        guard set.verified, let verifiedAt = set.verifiedAt else { return false }
        let instant = now()
        return verifiedAt > instant.addingTimeInterval(-Self.sharedRefreshSeconds)
            && set.expiresAt > instant.addingTimeInterval(Self.sharedRefreshSeconds)
    }

    /// How often ``freshTokenSet(for:logger:)`` reads again at once, without waiting, after
    /// its refresh lost the compare-and-swap: the winner's newer tokens are already stored,
    /// and reading them is the point (they are returned, not refreshed again).
    static let rereadsAfterLostSwap = 3

    /// A token set for `user` whose access token is usable: the stored one while it is
    /// outside the window or just refreshed, otherwise a refreshed one (written back by
    /// compare-and-swap). When another writer wins the race, its newer tokens are returned,
    /// not refreshed again, however wide the window.
    /// - Throws: ``FreshTokenError``, or ``ConfigurationFailure``.
    package func freshTokenSet(for user: UserID, logger: Logger) async throws -> GmailTokenSet {
        var flushed = false, consulted = false
        for _ in 0...Self.rereadsAfterLostSwap {
            let current: TokenVault.Stored?
            do {
                current = try await vault.current(of: user)
            } catch {
                throw FreshTokenError.unavailable
            }
            guard let current else { throw FreshTokenError.notConnected }
            // Events a failed put left (perhaps a disconnect's, which then deletes the grant) go first.
            if !flushed, current.tokenSet.lifecycle?.hasWork == true, vault.events != nil {
                flushed = true
                await vault.publishPending(of: user, current.tokenSet, version: current.version)
                continue  // read what the outbox left (or find the grant deleted)
            }
            let set = current.tokenSet
            // Google's word on the account first (one read): a disabled or hijacked account's
            // token is never handed out, even while a lagging listing hid the grant from the
            // receiver of Google's event.
            if !consulted {
                consulted = true
                do {
                    try await vault.honourGoogle(user, written: set)
                } catch is GoogleWordOverruled {
                    continue  // read what Google's word left
                } catch {
                    logger.error("Google's word on the account cannot be read; no token handed out", metadata: ["error": "\(error)"])
                    throw FreshTokenError.unavailable
                }
            }
            if set.status == .revoked { throw FreshTokenError.revoked }
            if set.status == .rejected { throw FreshTokenError.rejected }
            if set.status == .disabled { throw FreshTokenError.disabled }
            if set.expiresAt > now().addingTimeInterval(Double(windowSeconds)) || isJustRefreshed(set) { return set }
            switch try await refresh(user, when: .expiring, listedTags: nil, read: current, consultsGoogle: false, logger: logger) {
            case .refreshed(let renewed): return renewed
            case .conflict: continue  // newer tokens are stored: read them
            case .revoked: throw FreshTokenError.revoked
            case .rejected: throw FreshTokenError.rejected
            case .transientFailure: throw FreshTokenError.unavailable
            case .skipped(let reason):
                if reason == "not stored" || reason == "disconnected meanwhile" { throw FreshTokenError.notConnected }
                // No refresh token: the stored access token is all there is while it lives.
                if set.expiresAt > now() { return set }
                throw FreshTokenError.revoked
            }
        }
        throw FreshTokenError.unavailable
    }
}
