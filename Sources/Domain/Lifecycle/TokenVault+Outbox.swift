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
    /// Publishes the events pending in `user`'s grant, read as `set` at `version`, within
    /// `budget` (the publisher's ``LifecyclePublisher/requestBudget`` unless given: a
    /// request waits no longer for a hanging bus), then removes those the bus accepted by a
    /// compare-and-swap (re-reading after a lost one: the newer value carries the same
    /// outbox), and deletes the grant when a disconnect waited for them. Best effort: what
    /// is not published stays pending, for the next invocation that reads this grant or
    /// the refresh run's sweep.
    ///
    /// The deletion is conditioned on the version this swap wrote, so a reconnect written
    /// in between stands (``GrantStore/delete(_:expected:recoveryWindowDays:)``), whichever
    /// invocation finishes the disconnect: its own, fresh-token or the refresh run's sweep.
    /// - Parameters:
    ///   - eachPut: how long one put may take at most (the sweep's per-batch budget); `nil`: what is left of `budget`.
    ///   - dropped: what the write of `set` dropped from its full outbox, for the attempt's metrics line.
    /// - Returns: the grant's version after, or `nil` when it was deleted or nothing was written.
    @discardableResult
    package func publishPending(
        of user: UserID, _ set: GmailTokenSet, version: GrantVersion, within budget: Duration? = nil, eachPut: Duration? = nil,
        dropped: [LifecycleEvent] = []
    ) async -> GrantVersion? {
        guard let events, let outbox = set.lifecycle, outbox.hasWork else { return nil }
        let budget = budget ?? events.requestBudget
        let accepted = outbox.pending.isEmpty ? [] : await events.publish(outbox.pending, within: budget, eachPut: eachPut, dropped: dropped)
        guard !accepted.isEmpty || outbox.pending.isEmpty else { return nil }
        var current = Stored(tokenSet: set, version: version)
        for _ in 0..<Self.rereadsAfterLostSwap {
            var cleared = current.tokenSet
            cleared.lifecycle?.pending.removeAll { accepted.contains($0.eventID) }
            let deleteDays = cleared.lifecycle.flatMap { $0.pending.isEmpty ? $0.deleteAfterPublishDays : nil }
            if cleared == current.tokenSet, deleteDays == nil { return current.version }
            do {
                let written: GrantVersion
                if cleared == current.tokenSet {
                    written = current.version  // a deletion alone: the version read is the one to delete
                } else {
                    written = try await clearing(user, cleared, expected: current.version)
                }
                guard let deleteDays else {
                    if !grants.writesAttributesWithValue { await retagIfOvertaken(user, tagged: written) }
                    return written
                }
                try await grants.delete(user.rawValue, expected: written, recoveryWindowDays: deleteDays)
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

    /// The outbox's clearing write: its version, also when only its tags failed (the value,
    /// the authority, is stored; the stale stamp gets the tags rewritten later).
    private func clearing(_ user: UserID, _ cleared: GmailTokenSet, expected: GrantVersion) async throws -> GrantVersion {
        do {
            return try await grants.replace(user.rawValue, expected: expected, value: try cleared.jsonString(), attributes: TokenSetTags.tags(for: cleared))
        } catch let untagged as AttributesNotWritten {
            return untagged.version
        }
    }

    /// Publishes what `user`'s grant holds pending, reading it first, within `budget` (the
    /// request's unless given).
    /// - Returns: whether the grant is still stored (not deleted by a disconnect's outbox).
    /// - Throws: `StoreError` when it cannot be read.
    @discardableResult
    package func flush(_ user: UserID, within budget: Duration? = nil) async throws -> Bool {
        guard let stored = try await current(of: user) else { return false }
        guard stored.tokenSet.lifecycle?.hasWork == true else { return true }
        if await publishPending(of: user, stored.tokenSet, version: stored.version, within: budget) != nil { return true }
        return try await current(of: user) != nil
    }

    /// `set` with its outbox within the publisher's ``LifecyclePublisher/maxPending``, and
    /// the events that dropped: what every write of a changed grant stores.
    func bounded(_ set: GmailTokenSet) -> (GmailTokenSet, dropped: [LifecycleEvent]) {
        guard let events, let outbox = set.lifecycle else { return (set, []) }
        let (kept, dropped) = outbox.bounded(to: events.maxPending)
        guard !dropped.isEmpty else { return (set, []) }
        var bounded = set
        bounded.lifecycle = kept
        return (bounded, dropped)
    }
}
