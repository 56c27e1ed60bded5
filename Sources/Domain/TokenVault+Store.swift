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
    /// The first connection creates the secret with its tags. Later writes are a
    /// compare-and-swap from the version read, so a refresh finishing in between is never
    /// overwritten with a stale merge: the loser reads again and merges again. A secret
    /// scheduled for deletion (a disconnect) is restored first and treated as a first
    /// connection, since its grant was revoked at Google; so is a disconnect that lands
    /// between this call's read and its write.
    /// - Throws: `StoreError.conflict` when the write kept losing races; other `StoreError`s.
    public func store(_ incoming: IncomingTokens, for user: UserID) async throws -> StoreResult {
        let name = user.secretName
        var restored = false
        for _ in 0..<maxAttempts {
            let value: SecretValue
            do {
                value = try await secrets.getSecretValue(name: name, stage: .current)
            } catch let error as StoreError where error == .notFound {
                let (tokenSet, outcome) = GmailTokenSet.merging(incoming, over: nil, now: now())
                do {
                    _ = try await secrets.createSecret(
                        name: name, value: try tokenSet.jsonString(), tags: TokenSetTags.tags(for: tokenSet),
                        clientRequestToken: SecretVersionID.random().rawValue
                    )
                    return StoreResult(outcome: outcome, tokenSet: tokenSet)
                } catch let error as StoreError where error == .alreadyExists || error == .scheduledForDeletion {
                    continue  // created (or deleted) by someone else meanwhile: read again
                }
            } catch let error as StoreError where error == .scheduledForDeletion {
                try await secrets.restoreSecret(name: name)
                restored = true
                continue
            }

            let previous = restored ? nil : try? GmailTokenSet.decode(value.string)
            let (tokenSet, outcome) = GmailTokenSet.merging(incoming, over: previous, now: now())
            do {
                try await replace(tokenSet, of: user, expected: value.versionID)
                return StoreResult(outcome: outcome, tokenSet: tokenSet)
            } catch let error as StoreError where error == .conflict {
                continue
            } catch let error as StoreError where error == .scheduledForDeletion || error == .notFound {
                // A disconnect deleted the secret between our read and our write: read
                // again, which restores it, and this store is the reconnection.
                continue
            }
        }
        throw StoreError.conflict.with(message: "\(name) kept changing while storing; try again")
    }
}
