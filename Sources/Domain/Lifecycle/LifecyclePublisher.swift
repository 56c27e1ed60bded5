#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PayPulsePorts

/// Publishes recorded lifecycle events to the bus, in order, in as few puts as the bus
/// takes, and says which the bus accepted; one metrics line per attempt (namespace
/// ``metricNamespace``): published, failed, refused, still pending, and the age of the
/// oldest still pending, which the template alarms on. It never throws: a bus that fails
/// leaves the events pending in their grant's outbox, and the change stands.
package struct LifecyclePublisher: Sendable {
    /// The metrics' namespace.
    package static let metricNamespace = "PayPulse/Lifecycle"
    /// The metrics' one dimension, `Service`, and its value: every function counts into the same series.
    package static let metricDimension = (name: "Service", value: "paypulse-gmail")
    /// How long refreshes may fail for now before `Gmail Refresh Failing` (`PAYPULSE_REFRESH_FAILING_DAYS`, 3 days).
    package static let defaultFailingSpan: TimeInterval = 3 * 86_400

    let bus: any LifecycleEventBus
    let metrics: any MetricsSink
    let logger: Logger
    /// After how long of failing refreshes a grant's `Gmail Refresh Failing` is recorded.
    package let failingSpan: TimeInterval
    let now: @Sendable () -> Date

    /// Creates a publisher onto `bus`.
    package init(
        bus: any LifecycleEventBus, metrics: any MetricsSink, logger: Logger, failingSpan: TimeInterval = LifecyclePublisher.defaultFailingSpan,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.bus = bus
        self.metrics = metrics
        self.logger = logger
        self.failingSpan = failingSpan
        self.now = now
    }

    /// Puts `events`; the ids of those the bus accepted.
    package func publish(_ events: [LifecycleEvent]) async -> Set<String> {
        var accepted = Set<String>(), failed = 0, refused = 0
        var start = 0
        while start < events.count {
            let batch = Array(events[start..<min(start + max(bus.maxEntriesPerPut, 1), events.count)])
            start += batch.count
            let answers: [LifecycleBusFailure?]
            do {
                answers = try await bus.put(batch.map(Self.entry))
            } catch {
                answers = Array(repeating: error, count: batch.count)
            }
            for (event, answer) in zip(batch, answers) {
                guard let answer else {
                    accepted.insert(event.eventID)
                    continue
                }
                failed += 1
                if answer.refused { refused += 1 }
                let metadata: Logger.Metadata = ["user_id": "\(event.userID)", "event_id": "\(event.eventID)", "detail_type": "\(event.kind.rawValue)", "bus": "\(answer)"]
                if answer.refused {
                    logger.error("the event bus refused a lifecycle event; it stays pending", metadata: metadata)
                } else {
                    logger.warning("lifecycle event not published; it stays pending", metadata: metadata)
                }
            }
        }
        let left = events.filter { !accepted.contains($0.eventID) }
        let oldest = left.map(\.occurredAt).min().map { max(0, now().timeIntervalSince($0)) } ?? 0
        metrics.emit(metricLine(published: accepted.count, failed: failed, refused: refused, pending: left.count, oldestPendingSeconds: Int64(oldest)))
        return accepted
    }

    /// The event as the bus takes it.
    static func entry(_ event: LifecycleEvent) -> LifecycleBusEntry {
        LifecycleBusEntry(id: event.eventID, source: LifecycleEvent.source, detailType: event.kind.rawValue, detail: event.detailText, time: event.occurredAt)
    }

    /// One attempt's counts as an EMF line (`paypulse deploy-facts` reads the family back).
    package func metricLine(published: Int, failed: Int, refused: Int, pending: Int, oldestPendingSeconds: Int64) -> String {
        Self.metricLine(published: published, failed: failed, refused: refused, pending: pending, oldestPendingSeconds: oldestPendingSeconds, timestamp: now())
    }

    /// The EMF line of one attempt's counts.
    package static func metricLine(published: Int, failed: Int, refused: Int, pending: Int, oldestPendingSeconds: Int64, timestamp: Date) -> String {
        EmbeddedMetricLine.line(
            namespace: metricNamespace, dimensions: [metricDimension],
            metrics: [
                .init("Published", Int64(published)), .init("Failed", Int64(failed)), .init("Refused", Int64(refused)), .init("Pending", Int64(pending)),
                .init("OldestPendingSeconds", unit: "Seconds", oldestPendingSeconds),
            ],
            timestamp: timestamp
        )
    }
}
