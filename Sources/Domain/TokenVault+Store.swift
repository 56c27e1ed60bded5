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
    /// compare-and-swap and drops its answer), so a lost race is tried again under
    /// ``RetryPolicy/lostRace`` (the vault's `lostRace`), after a short jittered wait: a
    /// refresh's window (read, Google, write) is far longer than a store's (read, write), so
    /// a store loses only to refreshes that were about to finish, and one refresh per grant
    /// is due at a time.
    /// - Throws: `StoreError.conflict` when the write kept losing races; other `StoreError`s.
    public func store(_ incoming: IncomingTokens, for user: UserID) async throws -> StoreResult {
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

    /// One read and one write; `nil` when another writer (or a disconnect) came in between,
    /// so the store must read again.
    private func storeOnce(_ incoming: IncomingTokens, for user: UserID, restored: inout Bool) async throws -> StoreResult? {
        let value: GrantValue
        do {
            value = try await grants.read(user.rawValue)
        } catch let error as StoreError where error == .notFound {
            let (tokenSet, outcome) = GmailTokenSet.merging(incoming, over: nil, now: now())
            do {
                try await grants.create(user.rawValue, value: try tokenSet.jsonString(), attributes: TokenSetTags.tags(for: tokenSet))
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

        let previous = restored ? nil : try? GmailTokenSet.decode(value.value)
        let (tokenSet, outcome) = GmailTokenSet.merging(incoming, over: previous, now: now())
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

/// A store's attempt that lost its race: worth another under ``RetryPolicy/lostRace``.
private struct LostRace: Error {}
