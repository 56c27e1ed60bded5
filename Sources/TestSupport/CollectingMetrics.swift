import Foundation
import PayPulsePorts
import Synchronization

/// Metrics lines summed by metric name, for a suite that checks what a run counted (each
/// EMF line's top-level numbers are its metrics' values).
package final class CollectingMetrics: MetricsSink, Sendable {
    private let totals = Mutex<[String: Int]>([:])

    package init() {}

    package func emit(_ line: String) {
        guard let document = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return }
        totals.withLock { totals in
            for (name, value) in document { if let number = value as? Int { totals[name, default: 0] += number } }
        }
    }

    /// The sum of `name` over every line so far.
    package func total(_ name: String) -> Int { totals.withLock { $0[name] ?? 0 } }
}
