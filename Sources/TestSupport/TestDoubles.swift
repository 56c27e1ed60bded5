#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulsePorts
import Synchronization

/// Metrics lines nobody reads (a suite, a benchmark).
package struct DiscardedMetrics: MetricsSink {
    package init() {}
    package func emit(_ line: String) {}
}

/// A clock a test moves by hand, from the real time.
package final class MovingClock: Sendable {
    private let date = Mutex(Date())

    package init() {}

    /// The current fake time.
    package var now: Date { date.withLock { $0 } }

    /// Moves the clock `seconds` on.
    package func advance(by seconds: TimeInterval) { date.withLock { $0 += seconds } }
}
