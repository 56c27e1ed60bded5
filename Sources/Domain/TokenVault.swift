#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulsePorts

/// The token sets of all users, on a ``GrantStore``: reading, storing what the app sends,
/// and compare-and-swap replacing, under the storage contract of docs/design.md ("Grants
/// and where they live").
package struct TokenVault: Sendable {
    /// A stored token set with the version it was read from.
    package struct Stored: Sendable, Equatable {
        /// The token set.
        package var tokenSet: GmailTokenSet
        /// The version that was current when it was read.
        package var version: GrantVersion
    }

    /// What ``store(_:for:)`` did.
    package struct StoreResult: Sendable, Equatable {
        /// First connection, update or account switch.
        package var outcome: StoreOutcome
        /// What is stored now.
        package var tokenSet: GmailTokenSet
    }

    /// Where the token sets live.
    package let grants: any GrantStore
    let now: @Sendable () -> Date
    /// How ``store(_:for:)`` and a disconnect's revoked mark wait and try again after losing
    /// compare-and-swap races.
    let lostRace: RetryPolicy
    /// The jitter source of ``lostRace``'s waits, `0...1`.
    let random: @Sendable () -> Double
    /// The deployment's refresh-token digester, if it has a key: every set written with a
    /// refresh token and no digests is stamped with them (``GmailTokenSet/refreshTokenDigests``).
    let digester: @Sendable () async throws -> RefreshTokenDigester?
    /// Where the grants' lifecycle events go; `nil` (no bus configured) records none.
    package let events: LifecyclePublisher?
    /// Google's word on each account, which every write of a usable grant consults
    /// (``honourGoogle(_:written:)``); `nil` consults nothing.
    package let googleWord: GoogleWordCheck?

    /// How often a tag write or a revoked mark that lost a compare-and-swap reads again and
    /// retries at once, without waiting: the winner's value is already stored, and these
    /// writes only need to land on it (it is not a contended retry, so not the
    /// ``RetryPolicy``'s business).
    static let rereadsAfterLostSwap = 4

    /// Creates a vault over `grants`.
    /// - Parameters:
    ///   - grants: Where the token sets live.
    ///   - now: The clock.
    ///   - lostRace: How a store that lost a compare-and-swap race waits and tries again.
    ///   - random: The jitter source of those waits, `0...1` (tests pin it).
    ///   - digester: The refresh-token digester (``GoogleClients/tokenDigester``); `nil`
    ///     (the default) stamps nothing: a vault that writes only sets it read (a
    ///     disconnect's mark) keeps their digests as they are.
    ///   - events: where each change's lifecycle event goes (``LifecycleOutbox``); `nil`
    ///     records none.
    ///   - googleWord: Google's word on each account, consulted after every write of a
    ///     usable grant; `nil` consults none.
    package init(
        grants: any GrantStore, now: @escaping @Sendable () -> Date = { Date() }, lostRace: RetryPolicy = .lostRace,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0...1) },
        digester: @escaping @Sendable () async throws -> RefreshTokenDigester? = { nil }, events: LifecyclePublisher? = nil,
        googleWord: GoogleWordCheck? = nil
    ) {
        self.grants = grants
        self.events = events
        self.googleWord = googleWord
        self.now = now
        self.lostRace = lostRace
        self.random = random
        self.digester = digester
    }

    /// `tokenSet` with its refresh token's digests, when it has a refresh token without them
    /// and the vault a digester.
    /// - Throws: what reading the digester's key throws.
    func stamped(_ tokenSet: GmailTokenSet) async throws -> GmailTokenSet {
        guard tokenSet.refreshTokenDigests == nil, let token = tokenSet.refreshToken, !token.isEmpty, let digester = try await digester() else {
            return tokenSet
        }
        var stamped = tokenSet
        stamped.refreshTokenDigests = digester.digests(of: token)
        return stamped
    }

    /// `set` with `kind` recorded in its outbox (``LifecycleOutbox``), when the vault has a
    /// bus; `set` as it is otherwise.
    package func recorded(
        _ set: GmailTokenSet, _ kind: LifecycleEvent.Kind, reason: String, user: UserID, previous: LifecycleEvent.Status
    ) -> GmailTokenSet {
        guard events != nil else { return set }
        return set.recording(kind, reason: reason, user: user, previous: previous, at: now())
    }

    /// The connection state from the grant's listing attributes alone
    /// (``GrantStates/state(of:)``), so the caller needs no permission to read token values.
    /// - Throws: `StoreError` when the store fails.
    package func connectionState(of user: UserID) async throws -> ConnectionState {
        try await ConnectionState.of(user, in: grants)
    }

    /// The current token set, or `nil` when none is stored (or it is scheduled for deletion).
    /// - Throws: `StoreError.corrupt` when the value is not a token set; `.unavailable` when
    ///   it is one of a newer release's format (``refusingNewerFormat(_:of:)``); other `StoreError`s.
    package func current(of user: UserID) async throws -> Stored? {
        let value: GrantValue
        do {
            value = try await grants.read(user.rawValue)
        } catch let error as StoreError where error == .notFound || error == .scheduledForDeletion {
            return nil
        }
        try refusingNewerFormat(value, of: user)
        do {
            return Stored(tokenSet: try GmailTokenSet.decode(value.value), version: value.version)
        } catch {
            throw StoreError.corrupt.with(message: "the stored grant of user \(user) is not a token set")
        }
    }

    /// A grant a newer release wrote is refused, for now (503): this release would drop the
    /// members it cannot read by writing the set back, pending events and all.
    /// - Throws: `StoreError.unavailable` for a document of a newer format.
    func refusingNewerFormat(_ value: GrantValue, of user: UserID) throws {
        guard GmailTokenSet.isNewerFormat(value.value) else { return }
        throw StoreError.unavailable.with(message: "the grant of user \(user) is of a newer release's format; this release leaves it as it is")
    }

    /// Compare-and-swap: stores `tokenSet` (its outbox within its bound,
    /// ``LifecycleOutbox/bounded(to:)``) only if `expected` is still current, with new
    /// listing tags unless `tagged` (the tags the replaced version carries) still describe
    /// it: a refresh that renews only the access token then costs two calls on Secrets
    /// Manager (read, put), and the listing infers the new expiry from the
    /// write's date (``TokenSetTags/impliedExpiry(from:lastChanged:)``).
    /// - Parameter tagsRequired: whether a value stored without its tags (refused after the
    ///   value landed) throws once its events are published, for a caller that must be asked
    ///   again rather than answer as stored.
    /// - Throws: `StoreError.conflict` when newer tokens were stored meanwhile (nothing written);
    ///   `StoreError.unavailable` for tags refused, when `tagsRequired` (the value is stored).
    @discardableResult
    package func replace(
        _ tokenSet: GmailTokenSet, of user: UserID, expected: GrantVersion, tagged: [String: String]? = nil, tagsRequired: Bool = false
    ) async throws -> GrantVersion {
        let (tokenSet, dropped) = bounded(try await stamped(tokenSet))
        // Where tags ride with the value for free, they are always written: a store's due
        // index is keyed from them at every write.
        let keepTags = !grants.writesAttributesWithValue && (tagged.map { TokenSetTags.stillDescribe($0, tokenSet) } ?? false)
        let version: GrantVersion
        var untagged = false
        do {
            version = try await grants.replace(
                user.rawValue, expected: expected, value: try tokenSet.jsonString(), attributes: keepTags ? nil : TokenSetTags.tags(for: tokenSet)
            )
            // Writing no tags, we cannot overtake another writer's either.
            if !keepTags && !grants.writesAttributesWithValue { await retagIfOvertaken(user, tagged: version) }
        } catch let refused as AttributesNotWritten {
            // The change is stored; the tags it left say another version (their stamp), so
            // the next writer, or the refresh run that finds them stale, rewrites them.
            version = refused.version
            untagged = true
        }
        var written = version
        if tokenSet.lifecycle?.hasWork == true { written = await publishPending(of: user, tokenSet, version: version, dropped: dropped) ?? version }
        if tagsRequired, untagged {
            throw StoreError.unavailable.with(message: "the grant of user \(user) is stored but its listing tags were not written; ask again")
        }
        return written
    }

    /// Rewrites the listing tags of `user`'s grant from `tokenSet`, the value stored at
    /// `version` (the authority), e.g. after a write whose tagging failed. Tags never land
    /// on a newer value: a store that can condition them on `version` does (a newer value
    /// is then left with its own, and this throws `conflict`); on one that cannot, the tags
    /// are checked against the current value afterwards, as after a replace.
    /// - Throws: `StoreError.conflict` when a newer value was stored (nothing written).
    package func retag(_ tokenSet: GmailTokenSet, of user: UserID, version: GrantVersion) async throws {
        try await grants.mark(user.rawValue, attributes: TokenSetTags.tags(for: tokenSet), expected: version)
        if !grants.writesAttributesWithValue { await retagIfOvertaken(user, tagged: version) }
    }

    /// Tags go on after the compare-and-swap, so another writer can swap in a newer set
    /// and tag it before our tags land: the newer set would then carry ours (say `revoked`
    /// on a fresh reconnect). So, once our tags are on, if the current version is no longer
    /// the one we tagged for, tag again from the current value, and check again. The last
    /// tag write is always followed by such a check, so the tags end up describing the
    /// current value. Best effort: the write itself has succeeded. A check or retag that
    /// fails leaves tags stamped for another version than the current one, which the
    /// listing shows stale (``GrantAttributesVersion/stale``): the refresh run reads that
    /// grant and rewrites its tags. Stores that write tags with the value in one atomic write
    /// (``GrantStore/writesAttributesWithValue``) skip it.
    func retagIfOvertaken(_ user: UserID, tagged version: GrantVersion) async {
        var tagged = version
        for _ in 0..<Self.rereadsAfterLostSwap {
            guard let current = try? await grants.state(of: user.rawValue).currentVersion, current != tagged,
                  let value = try? await grants.read(user.rawValue),
                  let set = try? GmailTokenSet.decode(value.value)
            else { return }
            guard (try? await grants.mark(user.rawValue, attributes: TokenSetTags.tags(for: set), expected: value.version)) != nil else { return }
            tagged = value.version
        }
    }
}

extension TokenVault {
    /// Marks the user's token set revoked (its grant was revoked at Google), then deletes
    /// it with a recovery window (7–30 days); a later ``store(_:for:)`` restores it.
    ///
    /// The mark comes first so that a reconnect which restores the grant and then fails
    /// to write (409, 503) leaves a set that reads as not connected, never the old grant
    /// shown as connected. The reconnect re-tags the restored set from its value: a writer
    /// overtaken by the mark may have tagged after it, before the delete.
    ///
    /// The mark leaves the set verified: Google's word (or the user's) is final, so the
    /// refresh run never takes a marked set and writes it active again.
    /// - Parameter judging: whether the set read may be disconnected, judged on the very set
    ///   the mark swaps (a purge: the account and the event's age); a set it refuses is left
    ///   as it is, and so is every later one.
    /// - Returns: whether this call marked the grant (`false`: it refused the set, or the
    ///   set was gone or already disconnecting).
    /// - Throws: `StoreError.notFound` / `.scheduledForDeletion` when nothing is connected;
    ///   `StoreError.conflict` when the mark kept losing races.
    @discardableResult
    package func disconnect(
        _ user: UserID, recoveryWindowDays: Int, event: LifecycleEvent.Kind = .disconnected, reason: String = "user_disconnected",
        judging: @escaping @Sendable (GmailTokenSet) -> Bool = { _ in true }
    ) async throws -> Bool {
        guard events != nil else {
            let settled = try await markRevoked(user, judging: judging) { set in
                guard set.status != .revoked || !set.verified else { return nil }
                var marked = set
                marked.status = .revoked
                marked.verified = true
                marked.updatedAt = now()
                return marked
            }
            guard settled != .absent else { return false }
            // Deletes the revoked set read, never a reconnect written since the mark.
            guard let marked = try await current(of: user), marked.tokenSet.status == .revoked, judging(marked.tokenSet) else { return false }
            do {
                try await grants.delete(user.rawValue, expected: marked.version, recoveryWindowDays: recoveryWindowDays)
                return true
            } catch let error as StoreError where error == .conflict {
                return false  // reconnected after the mark: the new grant stands
            }
        }
        // With a bus, the mark carries the event and the deletion, done once the event is out
        // (``publishPending(of:_:version:)``): a deleted grant could not publish it later.
        let settled = try await markRevoked(user, judging: judging) { set in
            guard set.lifecycle?.deleteAfterPublishDays == nil else { return nil }  // an earlier attempt's mark
            var marked = set
            marked.status = .revoked
            marked.verified = true
            marked.updatedAt = now()
            marked = marked.recording(event, reason: reason, user: user, previous: LifecycleEvent.Status(set), status: .disconnected, at: now())
            marked.lifecycle?.deleteAfterPublishDays = recoveryWindowDays
            return marked
        }
        guard settled != .absent else { return false }
        // The mark's own write made this request's one attempt; an earlier attempt's mark has
        // its events published now.
        if settled == .alreadySo { _ = try await flush(user) }
        return settled == .changed
    }

    /// The user's disconnect must win over refreshes in flight, as the user's new tokens do:
    /// the mark re-reads at once after a lost swap, and once those re-reads are spent (a
    /// refresh storm kept writing), waits and tries again under ``RetryPolicy/lostRace``.
    private func markRevoked(
        _ user: UserID, judging: @escaping @Sendable (GmailTokenSet) -> Bool, change: @escaping @Sendable (GmailTokenSet) -> GmailTokenSet?
    ) async throws -> Settled {
        do {
            return try await lostRace.run({ _ -> AttemptResult<Settled, any Error> in
                do {
                    return .success(try await settle(user, where: judging, doing: "disconnecting; try again", change: change))
                } catch let error as StoreError where error == .conflict {
                    return .failure(error, retryable: true)
                } catch {
                    return .failure(error, retryable: false)
                }
            }, random: random)
        } catch let exhausted {
            throw exhausted.failure
        }
    }

    /// What ``settle(_:where:tagsRequired:doing:change:)`` did to a grant.
    package enum Settled: Sendable, Equatable {
        /// The changed set is stored.
        case changed
        /// The set was already as the change leaves it (its tags rewritten from the value).
        case alreadySo
        /// Nothing to change: no set, one that does not match, or one deleted meanwhile.
        case absent
    }

    /// Changes `user`'s set by `change` while its value `matches`, as a compare-and-swap
    /// from the value read, deciding again on a newer value after a lost swap.
    ///
    /// `change` answers `nil` when the set is already as it would leave it, perhaps by an
    /// earlier attempt whose tagging failed (Secrets Manager tags apart from the value):
    /// the tags are then written again from the value, or the listing keeps saying what
    /// it said (a revoked set read as connected).
    /// - Parameter tagsRequired: whether a change stored without its tags throws
    ///   (``replace(_:of:expected:tagged:tagsRequired:)``), as a retag that fails always does.
    /// - Throws: `StoreError.conflict` when the set kept changing ("... while `doing`").
    package func settle(
        _ user: UserID, where matches: (GmailTokenSet) -> Bool = { _ in true }, tagsRequired: Bool = false, doing: String,
        change: (GmailTokenSet) -> GmailTokenSet?
    ) async throws -> Settled {
        for _ in 0..<Self.rereadsAfterLostSwap {
            guard let stored = try await current(of: user), matches(stored.tokenSet) else { return .absent }
            do {
                guard let changed = change(stored.tokenSet) else {
                    if !grants.writesAttributesWithValue { try await retag(stored.tokenSet, of: user, version: stored.version) }
                    return .alreadySo
                }
                try await replace(changed, of: user, expected: stored.version, tagsRequired: tagsRequired)
                return .changed
            } catch let error as StoreError where error == .conflict {
                continue  // a newer set (a refresh, a reconnect): decide again on it
            } catch let error as StoreError where error == .notFound || error == .scheduledForDeletion {
                return .absent
            }
        }
        throw StoreError.conflict.with(message: "the grant of user \(user) kept changing while \(doing)")
    }
}

extension TokenVault {
    /// Stores what the app posted, merged over what is stored (see
    /// ``GmailTokenSet/merging(_:over:now:)``).
    ///
    /// The first connection creates the grant with its tags. Later writes are a
    /// compare-and-swap from the version read, so a refresh finishing in between is never
    /// overwritten with a stale merge: the loser reads again and merges again. A grant
    /// scheduled for deletion (a disconnect) is restored first and treated as a first
    /// connection, since its grant was revoked at Google; so is a disconnect that lands
    /// between this call's read and its write.
    ///
    /// The user's new tokens must win over a refresh in flight (the refresh loses its
    /// compare-and-swap and drops its answer), so a lost race is tried again under
    /// ``RetryPolicy/lostRace`` (the vault's `lostRace`), after a short jittered wait: a
    /// refresh's window (read, Google, write) is far longer than a store's (read, write), so
    /// a store loses only to refreshes that were about to finish, and one refresh per grant
    /// is due at a time.
    /// - Throws: `StoreError.conflict` when the write kept losing races; other `StoreError`s.
    package func store(_ incoming: IncomingTokens, for user: UserID) async throws -> StoreResult {
        var restored = false
        do {
            return try await lostRace.run({ _ -> AttemptResult<StoreResult, any Error> in
                do {
                    guard let result = try await storeOnce(incoming, for: user, restored: &restored) else {
                        return .failure(LostRace(), retryable: true)
                    }
                    return .success(result)
                } catch {
                    return .failure(error, retryable: false)
                }
            }, random: random)
        } catch let exhausted {
            guard exhausted.failure is LostRace else { throw exhausted.failure }
            throw StoreError.conflict.with(message: "the grant of user \(user) kept changing while storing; try again")
        }
    }

    /// ``store(_:for:)``, then Google's word on the stored account consulted
    /// (``honourGoogle(_:written:)``): an event Google issued after it proved these tokens,
    /// delivered while this write was in flight or hidden from its receiver by a lagging
    /// listing, is applied now.
    /// - Throws: ``GoogleWordOverruled`` when Google's newer word refused the grant just
    ///   stored; what ``store(_:for:)`` throws. A word that cannot be read is left to the
    ///   refresh run (`onUnreadWord` is told), and the store stands.
    package func storeHonouringGoogle(
        _ incoming: IncomingTokens, for user: UserID, onUnreadWord: (any Error) -> Void = { _ in }
    ) async throws -> StoreResult {
        let result = try await store(incoming, for: user)
        do {
            try await honourGoogle(user, written: result.tokenSet)
        } catch let overruled as GoogleWordOverruled {
            throw overruled
        } catch {
            onUnreadWord(error)
        }
        return result
    }

    /// One read and one write; `nil` when another writer (or a disconnect) came in between,
    /// so the store must read again.
    private func storeOnce(_ incoming: IncomingTokens, for user: UserID, restored: inout Bool) async throws -> StoreResult? {
        let value: GrantValue
        do {
            value = try await grants.read(user.rawValue)
        } catch let error as StoreError where error == .notFound {
            let (merged, outcome) = GmailTokenSet.merging(incoming, over: nil, now: now())
            let tokenSet = try await stamped(recordingStore(merged, outcome: outcome, over: nil, disconnected: false, user: user))
            do {
                let version = try await grants.create(user.rawValue, value: try tokenSet.jsonString(), attributes: TokenSetTags.tags(for: tokenSet))
                if tokenSet.lifecycle?.hasWork == true { _ = await publishPending(of: user, tokenSet, version: version) }
                return StoreResult(outcome: outcome, tokenSet: tokenSet)
            } catch let error as StoreError where error == .alreadyExists || error == .scheduledForDeletion {
                return nil  // created (or deleted) by someone else meanwhile: read again
            }
        } catch let error as StoreError where error == .scheduledForDeletion {
            try await grants.restore(user.rawValue)
            restored = true
            // A writer overtaken by the disconnect's revoked mark can tag after it, and
            // the deletion keeps those tags (a set deleted before the mark existed has no
            // mark at all): tag the restored set revoked, which its grant is, so that if
            // this store then fails it reads as not connected.
            if let restoredGrant = try? await current(of: user) {
                var restoredSet = restoredGrant.tokenSet
                restoredSet.status = .revoked
                try? await retag(restoredSet, of: user, version: restoredGrant.version)
            }
            return nil
        }

        try refusingNewerFormat(value, of: user)
        let stored = try? GmailTokenSet.decode(value.value)
        // A disconnect whose event is not out yet keeps the grant, revoked: storing over it
        // is a new connection, as over a deleted grant.
        let pendingDelete = stored?.lifecycle?.deleteAfterPublishDays != nil
        let previous = restored || pendingDelete ? nil : stored
        var (merged, outcome) = GmailTokenSet.merging(incoming, over: previous, now: now())
        // A failing refresh spell is the refresh token's: a post that keeps it (an access
        // token alone, the same grant again) keeps the spell, or an app posting every few days
        // would hide a grant Google no longer renews; a new grant starts without one.
        let sameGrant = previous != nil && merged.refreshToken == stored?.refreshToken
        merged.lifecycle = stored?.lifecycle.map {
            LifecycleOutbox(
                lastSequence: $0.lastSequence, pending: $0.pending, failingSince: sameGrant ? $0.failingSince : nil,
                failingReported: sameGrant && $0.failingReported
            )
        }
        // The event says what this write replaces: after a restore, another store may have
        // connected the grant again before this one read it back, and this one follows that.
        let replaced = pendingDelete || restored && stored?.lifecycle == nil ? nil : stored
        let change = replaced.map { replaced in previous == nil ? (GmailTokenSet.isSameAccount(replaced, incoming) ? .updated : .accountSwitched) : outcome }
        merged = recordingStore(merged, outcome: change ?? .firstConnection, over: replaced, disconnected: restored || pendingDelete, user: user)
        let tokenSet = try await stamped(merged)
        do {
            try await replace(tokenSet, of: user, expected: value.version)
            return StoreResult(outcome: outcome, tokenSet: tokenSet)
        } catch let error as StoreError where error == .conflict {
            return nil
        } catch let error as StoreError where error == .scheduledForDeletion || error == .notFound {
            // A disconnect deleted the grant between our read and our write: read
            // again, which restores it, and this store is the reconnection.
            return nil
        }
    }
}

extension TokenVault {
    /// `set` with the event its store makes recorded (``GmailTokenSet/storeEvent(outcome:over:disconnected:)``).
    func recordingStore(_ set: GmailTokenSet, outcome: StoreOutcome, over previous: GmailTokenSet?, disconnected: Bool, user: UserID) -> GmailTokenSet {
        guard events != nil, let event = set.storeEvent(outcome: outcome, over: previous, disconnected: disconnected) else { return set }
        return recorded(set, event.kind, reason: event.reason, user: user, previous: event.previous)
    }
}

/// A store's attempt that lost its race: worth another under ``RetryPolicy/lostRace``.
private struct LostRace: Error {}
