#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulsePorts

/// The vault's outbox publishing (``LifecycleOutbox``): what a change recorded goes to the
/// bus after the write, and leaves the grant's document once the bus took it. Without a bus
/// (``TokenVault/events`` `nil`) nothing is recorded and nothing runs here.
extension TokenVault {
    /// How old a disconnect's mark must be before a later invocation deletes the grant it
    /// kept for a failed put, in seconds.
    package static let sweepDeleteAge: TimeInterval = 120

    /// Publishes the events pending in `user`'s grant, read as `set` at `version`, then
    /// removes those the bus accepted by a compare-and-swap (re-reading after a lost one:
    /// the newer value carries the same outbox), and deletes the grant when a disconnect
    /// waited for them. Best effort: what is not published stays pending, for the next
    /// write of this grant or the refresh run's sweep.
    /// - Returns: the grant's version after, or `nil` when it was deleted or nothing was written.
    /// - Parameter sweeping: whether this is a later invocation finishing a failed put (the
    ///   refresh run's sweep, fresh-token) rather than the change's own: it then deletes a
    ///   disconnected grant only once its mark is ``sweepDeleteAge`` old, clear of the user's
    ///   reconnect right after.
    @discardableResult
    package func publishPending(of user: UserID, _ set: GmailTokenSet, version: GrantVersion, sweeping: Bool = false) async -> GrantVersion? {
        guard let events, let outbox = set.lifecycle, outbox.hasWork else { return nil }
        let accepted = outbox.pending.isEmpty ? [] : await events.publish(outbox.pending)
        guard !accepted.isEmpty || outbox.pending.isEmpty else { return nil }
        var current = Stored(tokenSet: set, version: version)
        for _ in 0..<Self.rereadsAfterLostSwap {
            var cleared = current.tokenSet
            cleared.lifecycle?.pending.removeAll { accepted.contains($0.eventID) }
            let deleteDays = cleared.lifecycle.flatMap { $0.pending.isEmpty ? $0.deleteAfterPublishDays : nil }
            if cleared == current.tokenSet, deleteDays == nil { return current.version }
            if deleteDays != nil, sweeping, now().timeIntervalSince(current.tokenSet.updatedAt) < Self.sweepDeleteAge { return current.version }
            do {
                // Written even when nothing is cleared before a deletion: the swap proves the
                // grant is still the disconnected one read (not a reconnect since) just before
                // it is deleted, as a disconnect marks just before it deletes.
                let written = try await grants.replace(
                    user.rawValue, expected: current.version, value: try cleared.jsonString(), attributes: TokenSetTags.tags(for: cleared)
                )
                guard let deleteDays else {
                    if !grants.writesAttributesWithValue { await retagIfOvertaken(user, tagged: written) }
                    return written
                }
                try await grants.delete(user.rawValue, recoveryWindowDays: deleteDays)
                return nil
            } catch let error as StoreError where error == .conflict {
                guard let again = try? await self.current(of: user) else { return nil }
                current = again
            } catch {
                return nil
            }
        }
        return nil
    }

    /// Publishes what `user`'s grant holds pending, reading it first (`sweeping` as
    /// ``publishPending(of:_:version:sweeping:)`` takes it).
    /// - Returns: whether the grant is still stored (not deleted by a disconnect's outbox).
    /// - Throws: `StoreError` when it cannot be read.
    @discardableResult
    package func flush(_ user: UserID, sweeping: Bool = false) async throws -> Bool {
        guard let stored = try await current(of: user) else { return false }
        guard stored.tokenSet.lifecycle?.hasWork == true else { return true }
        if await publishPending(of: user, stored.tokenSet, version: stored.version, sweeping: sweeping) != nil { return true }
        return try await current(of: user) != nil
    }
}
