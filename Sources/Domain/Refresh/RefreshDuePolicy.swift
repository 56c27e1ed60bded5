#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulsePorts

extension GrantDuePolicy {
    /// Due as ``RefreshJob`` takes grants under `settings`, so a due index keys each grant by
    /// the date the run's own test first holds: at once for one with lifecycle events pending; never for a settled grant (revoked, rejected,
    /// no refresh token); at once for one awaiting verification or without an expiry;
    /// eager, at the access token's expiry (a run takes it a window ahead); keeping alive, at
    /// the value's write (a run takes writes older than the keep-alive interval).
    ///
    /// The write is the token set's own `updated_at` (``GrantDuePolicy/valueWritten``), not
    /// the store's clock: a grant copied by a migration is then keyed at the expiry its value
    /// holds (the tagged lifetime counted from that write, as ``TokenSetTags/impliedExpiry(from:lastChanged:)``
    /// reads it) and, keeping alive, at its last write before the copy.
    package static func refresh(_ settings: RefreshSettings) -> GrantDuePolicy {
        let keepingAlive = settings.keepAlive != nil
        return GrantDuePolicy(
            dueDate: { attributes, written in
                if TokenSetTags.hasPendingEvents(attributes) { return Date(timeIntervalSince1970: 0) }
                if TokenSetTags.isSettled(attributes) { return nil }
                if TokenSetTags.awaitsVerification(attributes) { return Date(timeIntervalSince1970: 0) }
                if keepingAlive { return written }
                return TokenSetTags.impliedExpiry(from: attributes, lastChanged: written) ?? Date(timeIntervalSince1970: 0)
            },
            valueWritten: { try? GmailTokenSet.decode($0).updatedAt }
        )
    }
}

extension RefreshSettings {
    /// The latest ``GrantDuePolicy/refresh(_:)`` date a run at `now` takes: the end of the
    /// window, or (keeping alive) the start of the keep-alive interval.
    package func dueBy(now: Date) -> Date {
        if let keepAlive { return now.addingTimeInterval(-Double(keepAlive)) }
        return now.addingTimeInterval(Double(windowSeconds))
    }
}
