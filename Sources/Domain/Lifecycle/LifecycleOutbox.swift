#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseCoding
import PayPulsePorts

/// The events of a grant not yet published, kept in the grant's own document (member
/// `lifecycle`): the write that changes the grant records its event in the same
/// compare-and-swap, so a change is never stored without its event, and an event never
/// exists for a change that was not stored (a lost swap stores neither). Publishing then
/// removes what the bus accepted, by a second compare-and-swap; whatever is left is
/// published again by the next write of that grant or by the refresh run's sweep, with the
/// same ``LifecycleEvent/eventID``.
package struct LifecycleOutbox: Sendable, Equatable {
    /// The last ``LifecycleEvent/sequence`` given out for this user.
    package var lastSequence: Int64
    /// Recorded, not yet accepted by the bus, oldest first.
    package var pending: [LifecycleEvent]
    /// Set by a disconnect or a purge: the grant is deleted, with this recovery window, once
    /// its events are out (a deleted grant is neither read nor written, so its events must
    /// leave first).
    package var deleteAfterPublishDays: Int?
    /// When refreshes began failing for now (Google unreachable or erring); `nil` while they succeed.
    package var failingSince: Date? {
        didSet { if failingSince != oldValue { failingReported = false } }
    }
    /// Whether this spell's `Gmail Refresh Failing` is recorded.
    package var failingReported = false

    /// An empty outbox.
    package init(
        lastSequence: Int64 = 0, pending: [LifecycleEvent] = [], deleteAfterPublishDays: Int? = nil, failingSince: Date? = nil,
        failingReported: Bool = false
    ) {
        self.lastSequence = lastSequence
        self.pending = pending
        self.deleteAfterPublishDays = deleteAfterPublishDays
        self.failingSince = failingSince
        self.failingReported = failingReported
    }

    /// Whether work is left: events to publish, or a deletion waiting for them.
    package var hasWork: Bool { !pending.isEmpty || deleteAfterPublishDays != nil }

    /// This outbox with at most `limit` events pending: beyond it the oldest are dropped, so
    /// a bus that refuses for long never makes the grant's document too large to write (a
    /// Secrets Manager value holds 65,536 bytes). The changes themselves stand, and the
    /// newest events stay, in order: a consumer still reaches the grant's latest state, after
    /// a gap it can see (the first event kept names, as `previous_status`, a state whose
    /// event it never received).
    /// - Returns: the outbox kept, and the events dropped, oldest first.
    package func bounded(to limit: Int) -> (outbox: LifecycleOutbox, dropped: [LifecycleEvent]) {
        let excess = pending.count - max(limit, 1)
        guard excess > 0 else { return (self, []) }
        var kept = self
        kept.pending = Array(pending.dropFirst(excess))
        return (kept, Array(pending.prefix(excess)))
    }

    /// The next sequence at `now`: above the last one, and never below the clock's
    /// milliseconds, so it keeps increasing across a deletion that forgot the last one.
    func nextSequence(at now: Date) -> Int64 {
        max(lastSequence + 1, Int64((now.timeIntervalSince1970 * 1000).rounded(.down)))
    }

    var jsonValue: JSONValue {
        var fields: [String: JSONValue] = ["last_sequence": .integer(lastSequence), "pending": .array(pending.map(\.stored))]
        if let deleteAfterPublishDays { fields["delete_after_publish_days"] = .integer(Int64(deleteAfterPublishDays)) }
        if let failingSince { fields["failing_since"] = .string(RFC3339.string(from: failingSince)) }
        if failingReported { fields["failing_reported"] = .bool(true) }
        return .object(fields)
    }

    init(fields: [String: JSONValue]) throws(JSONTypeMismatch) {
        var pending: [LifecycleEvent] = []
        for item in try fields.array("pending") ?? [] {
            guard case .object(let event) = item else { throw JSONTypeMismatch(key: "lifecycle.pending") }
            pending.append(try LifecycleEvent(stored: event))
        }
        self.init(
            lastSequence: Int64(try fields.integer("last_sequence") ?? 0), pending: pending,
            deleteAfterPublishDays: try fields.integer("delete_after_publish_days"),
            failingSince: try fields.string("failing_since").flatMap(RFC3339.date(from:)),
            failingReported: try fields.bool("failing_reported") ?? false
        )
    }
}

extension GmailTokenSet {
    /// This set with `kind` recorded in its outbox, for `user`, at `now`: the status after
    /// is the set's own unless given (a disconnect's `disconnected`).
    /// - Parameters:
    ///   - previous: the connection's state before the change.
    ///   - eventID: a new random id from the system generator, as the version ids'
    ///     (``SecretVersionID/random()``: `UUID()` yields zeros where `/dev/urandom` is
    ///     missing, and two events would share an id); tests pin it.
    package func recording(
        _ kind: LifecycleEvent.Kind, reason: String, user: UserID, previous: LifecycleEvent.Status, status: LifecycleEvent.Status? = nil,
        at now: Date, eventID: String = SecretVersionID.random().rawValue
    ) -> GmailTokenSet {
        var outbox = lifecycle ?? LifecycleOutbox()
        let sequence = outbox.nextSequence(at: now)
        outbox.lastSequence = sequence
        outbox.pending.append(LifecycleEvent(
            eventID: eventID, kind: kind, userID: user.rawValue, status: status ?? LifecycleEvent.Status(self), previousStatus: previous,
            reason: reason, occurredAt: now, sequence: sequence, googleSubject: googleSubject
        ))
        var recorded = self
        recorded.lifecycle = outbox
        return recorded
    }
}
