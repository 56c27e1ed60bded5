#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulsePorts

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
    /// compare-and-swap and drops its answer), so a lost race is tried again up to
    /// ``storeAttempts`` times with a short jittered pause: a refresh's window (read, Google,
    /// write) is far longer than a store's (read, write), so a store loses only to refreshes
    /// that were about to finish, and one refresh per grant is due at a time.
    /// - Throws: `StoreError.conflict` when the write kept losing races; other `StoreError`s.
    public func store(_ incoming: IncomingTokens, for user: UserID) async throws -> StoreResult {
        var restored = false
        for attempt in 0..<Self.storeAttempts {
            if attempt > 0 { await Self.pauseAfterLostRace(attempt) }
            let value: GrantValue
            do {
                value = try await grants.read(user.rawValue)
            } catch let error as StoreError where error == .notFound {
                let (tokenSet, outcome) = GmailTokenSet.merging(incoming, over: nil, now: now())
                do {
                    try await grants.create(user.rawValue, value: try tokenSet.jsonString(), attributes: TokenSetTags.tags(for: tokenSet))
                    return StoreResult(outcome: outcome, tokenSet: tokenSet)
                } catch let error as StoreError where error == .alreadyExists || error == .scheduledForDeletion {
                    continue  // created (or deleted) by someone else meanwhile: read again
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
                continue
            }

            let previous = restored ? nil : try? GmailTokenSet.decode(value.value)
            let (tokenSet, outcome) = GmailTokenSet.merging(incoming, over: previous, now: now())
            do {
                try await replace(tokenSet, of: user, expected: value.version)
                return StoreResult(outcome: outcome, tokenSet: tokenSet)
            } catch let error as StoreError where error == .conflict {
                continue
            } catch let error as StoreError where error == .scheduledForDeletion || error == .notFound {
                // A disconnect deleted the grant between our read and our write: read
                // again, which restores it, and this store is the reconnection.
                continue
            }
        }
        throw StoreError.conflict.with(message: "the grant of user \(user) kept changing while storing; try again")
    }

    /// How often ``store(_:for:)`` reads and writes again after losing a race.
    static let storeAttempts = 16

    /// Up to 1, 2, 4, 8, then 16 ms at random: writers that collided spread out.
    private static func pauseAfterLostRace(_ attempt: Int) async {
        let ceiling = 1 << min(attempt - 1, 4)
        try? await Task.sleep(for: .microseconds(Int.random(in: 0...(ceiling * 1000))))
    }
}
