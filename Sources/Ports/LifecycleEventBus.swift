#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where the grants' lifecycle events go: an EventBridge bus (`PutEvents`), or the embedded
/// store's events table (and `paypulse serve`'s webhook). At least once: an entry may be
/// put again after an answer was lost, so each carries its own id in its detail.
package protocol LifecycleEventBus: Sendable {
    /// The most entries one ``put(_:)`` takes (EventBridge's `PutEvents` takes 10).
    var maxEntriesPerPut: Int { get }

    /// Puts `entries` in one request, its retries included, ending within `budget`: a bus
    /// that hangs costs its caller no more (what it did not take stays pending).
    /// - Returns: for each entry, in order, `nil` when the bus accepted it, else why not.
    /// - Throws: ``LifecycleBusFailure`` when the request as a whole failed or ran out of
    ///   its budget: no entry is known to be accepted (some may have been: the answer can be
    ///   what was lost).
    func put(_ entries: [LifecycleBusEntry], within budget: Duration) async throws(LifecycleBusFailure) -> [LifecycleBusFailure?]
}

/// One event as a bus takes it.
package struct LifecycleBusEntry: Sendable, Equatable {
    /// The event's own id (its detail's `event_id`), the same at every put.
    package var id: String
    /// `paypulse.gmail`.
    package var source: String
    /// What changed, e.g. `Gmail Revoked`.
    package var detailType: String
    /// The detail document, JSON text.
    package var detail: String
    /// When the change happened.
    package var time: Date

    /// Creates an entry.
    package init(id: String, source: String, detailType: String, detail: String, time: Date) {
        self.id = id
        self.source = source
        self.detailType = detailType
        self.detail = detail
        self.time = time
    }
}

/// Why a bus did not take an entry (or a whole put).
package struct LifecycleBusFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bus's code, e.g. `ThrottlingException`, `AccessDeniedException`, or `unreachable`.
    package var code: String
    /// Whether the bus refused us for something only an operator can fix (permission, a
    /// missing bus, an entry it will never take): an alarm, not a retry's business. Pending
    /// events stay pending either way.
    package var refused: Bool

    /// Creates a failure.
    package init(code: String, refused: Bool) {
        self.code = code
        self.refused = refused
    }

    package var description: String { refused ? "refused (\(code))" : "failed for now (\(code))" }
}
