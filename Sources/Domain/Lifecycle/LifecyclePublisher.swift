#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PayPulsePorts

/// Publishes recorded lifecycle events to the bus, in order, in as few puts as the bus
/// takes, within a time budget, and says which the bus accepted; one metrics line per
/// attempt (namespace ``metricNamespace``): published, failed, refused, still pending, the
/// age of the oldest still pending, and the events the write before it dropped from a full
/// outbox, which the template alarms on. It never throws: a bus that fails leaves the
/// events pending in their grant's outbox, and the change stands.
///
/// Two budgets: a request that changed a grant makes one short attempt
/// (``requestBudget``) and answers; the refresh run's sweep, which nobody waits on, gives
/// each put its own ``sweepBudget`` (``grantSweepBudget`` in all, never past the run's
/// deadline), so a slow put never leaves the newer batches, the latest state among them,
/// for another run. What is left goes with the next invocation that reads the grant, or the
/// next sweep.
package struct LifecyclePublisher: Sendable {
    /// The metrics' namespace.
    package static let metricNamespace = "PayPulse/Lifecycle"
    /// The metrics' one dimension, `Service`, and its value: every function counts into the same series.
    package static let metricDimension = (name: "Service", value: "paypulse-gmail")
    /// How long refreshes may fail for now before `Gmail Refresh Failing` (`PAYPULSE_REFRESH_FAILING_DAYS`, 3 days).
    package static let defaultFailingSpan: TimeInterval = 3 * 86_400
    /// How long a request's attempt may take (`PAYPULSE_EVENT_PUBLISH_MS`, 1 s).
    package static let defaultRequestBudget: Duration = .seconds(1)
    /// How long the refresh run's sweep may take over one put of a grant's events: the AWS
    /// calls' own retry budget, well inside the run's stop margin.
    package static let defaultSweepBudget: Duration = .seconds(10)
    /// How many events a grant keeps pending at most (`PAYPULSE_EVENT_MAX_PENDING`, 20):
    /// the grant's whole document must stay within Secrets Manager's 65,536 bytes.
    package static let defaultMaxPending = 20

    let bus: any LifecycleEventBus
    let metrics: any MetricsSink
    let logger: Logger
    /// After how long of failing refreshes a grant's `Gmail Refresh Failing` is recorded.
    package let failingSpan: TimeInterval
    /// The publishing of a request that changed a grant (store-tokens, disconnect, fresh-token,
    /// Google's security events): one short attempt, so a hanging bus never holds its answer.
    package let requestBudget: Duration
    /// The refresh run's sweep of one grant, for each put (a batch of the bus's
    /// ``LifecycleEventBus/maxEntriesPerPut``).
    package let sweepBudget: Duration
    /// The most events a grant's outbox keeps; a write beyond it drops the oldest (``LifecycleOutbox/bounded(to:)``).
    package let maxPending: Int
    let now: @Sendable () -> Date

    /// Creates a publisher onto `bus`.
    package init(
        bus: any LifecycleEventBus, metrics: any MetricsSink, logger: Logger, failingSpan: TimeInterval = LifecyclePublisher.defaultFailingSpan,
        requestBudget: Duration = LifecyclePublisher.defaultRequestBudget, sweepBudget: Duration = LifecyclePublisher.defaultSweepBudget,
        maxPending: Int = LifecyclePublisher.defaultMaxPending, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.bus = bus
        self.metrics = metrics
        self.logger = logger
        self.failingSpan = failingSpan
        self.requestBudget = requestBudget
        self.sweepBudget = sweepBudget
        self.maxPending = max(maxPending, 1)
        self.now = now
    }

    /// The refresh run's sweep of one grant in all: ``sweepBudget`` for each put a full
    /// outbox takes (``maxPending`` events), so that every batch has its own.
    package var grantSweepBudget: Duration {
        let perPut = max(bus.maxEntriesPerPut, 1)
        return sweepBudget * ((maxPending + perPut - 1) / perPut)
    }

    /// Puts `events`, batch after batch, while `budget` lasts, each put within `eachPut` too
    /// when given (the sweep's ``sweepBudget``). A put the bus refuses as a whole (a wrong
    /// policy, a deleted bus) ends the attempt: it would refuse the next batch as well. A put
    /// that fails otherwise (no answer in time, throttled, unreachable) leaves its batch
    /// pending, and the next batch gets what is left: a put whose answer was lost (it may
    /// well have landed) never keeps the newer events waiting. Each put gets only what is
    /// left, so a hanging bus costs the budget once, however many batches.
    /// - Parameter dropped: the events the write before this attempt dropped from a full
    ///   outbox (``LifecycleOutbox/bounded(to:)``), logged and counted in this attempt's line.
    /// - Returns: the ids of those the bus accepted.
    package func publish(
        _ events: [LifecycleEvent], within budget: Duration, eachPut: Duration? = nil, dropped: [LifecycleEvent] = []
    ) async -> Set<String> {
        let deadline = ContinuousClock.now + budget
        if let user = dropped.first?.userID {
            logger.error("a grant's outbox was full: its oldest lifecycle events were dropped, the newer ones stay pending", metadata: [
                "user_id": "\(user)", "dropped": "\(dropped.count)", "event_ids": "\(dropped.map(\.eventID).joined(separator: ","))",
                "kept": "\(events.count)",
            ])
        }
        var accepted = Set<String>(), failed = 0, refused = 0
        var start = 0
        while start < events.count {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { break }
            let batch = Array(events[start..<min(start + max(bus.maxEntriesPerPut, 1), events.count)])
            start += batch.count
            let answers: [LifecycleBusFailure?]
            var refusedWhole = false
            do {
                answers = try await bus.put(batch.map(Self.entry), within: eachPut.map { min($0, left) } ?? left)
            } catch {
                answers = Array(repeating: error, count: batch.count)
                refusedWhole = error.refused
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
            if refusedWhole { break }
        }
        let left = events.filter { !accepted.contains($0.eventID) }
        let oldest = left.map(\.occurredAt).min().map { max(0, now().timeIntervalSince($0)) } ?? 0
        metrics.emit(metricLine(
            published: accepted.count, failed: failed, refused: refused, pending: left.count, oldestPendingSeconds: Int64(oldest),
            dropped: dropped.count
        ))
        return accepted
    }

    /// The event as the bus takes it.
    static func entry(_ event: LifecycleEvent) -> LifecycleBusEntry {
        LifecycleBusEntry(id: event.eventID, source: LifecycleEvent.source, detailType: event.kind.rawValue, detail: event.detailText, time: event.occurredAt)
    }

    /// One attempt's counts as an EMF line (`paypulse deploy-facts` reads the family back).
    package func metricLine(published: Int, failed: Int, refused: Int, pending: Int, oldestPendingSeconds: Int64, dropped: Int = 0) -> String {
        Self.metricLine(
            published: published, failed: failed, refused: refused, pending: pending, oldestPendingSeconds: oldestPendingSeconds, dropped: dropped,
            timestamp: now()
        )
    }

    /// The EMF line of one attempt's counts.
    package static func metricLine(
        published: Int, failed: Int, refused: Int, pending: Int, oldestPendingSeconds: Int64, dropped: Int, timestamp: Date
    ) -> String {
        EmbeddedMetricLine.line(
            namespace: metricNamespace, dimensions: [metricDimension],
            metrics: [
                .init("Published", Int64(published)), .init("Failed", Int64(failed)), .init("Refused", Int64(refused)), .init("Pending", Int64(pending)),
                .init("OldestPendingSeconds", unit: "Seconds", oldestPendingSeconds), .init("Dropped", Int64(dropped)),
            ],
            timestamp: timestamp
        )
    }
}
