import Foundation

/// Records the reservations a ``WriteRateLimiter`` grants (pass ``record(start:writes:)`` as
/// its `onGrant`), so a test checks the pacing on the limiter's own instants: a writer that
/// wakes late cannot move them, so the bound is exact on however busy a machine.
package final class PermitLog: @unchecked Sendable {
    private let lock = NSLock()
    private var grants: [(start: ContinuousClock.Instant, writes: Int)] = []

    /// Creates an empty log.
    package init() {}

    /// Records one reservation of `writes` permits starting at `start`.
    package func record(start: ContinuousClock.Instant, writes: Int) {
        lock.withLock { grants.append((start, writes)) }
    }

    /// Every permit granted.
    package var permitCount: Int { lock.withLock { grants.reduce(0) { $0 + $1.writes } } }

    /// Whether each reservation starts no sooner than `perPermit` times the previous one's
    /// size after the previous one's start (the limiter's rule).
    package func isSpaced(by perPermit: Duration) -> Bool {
        let sorted = lock.withLock { grants.sorted { $0.start < $1.start } }
        return zip(sorted, sorted.dropFirst()).allSatisfy { earlier, later in later.start - earlier.start >= perPermit * earlier.writes }
    }

    /// The most permits whose reservations start within any window of `window` length.
    /// Reservations are spaced by their size times `1/rate`, so this is at most
    /// `rate × window` plus the last reservation's size.
    package func maxPermits(in window: Duration) -> Int {
        let sorted = lock.withLock { grants.sorted { $0.start < $1.start } }
        var best = 0, first = 0, inWindow = 0
        for last in sorted.indices {
            inWindow += sorted[last].writes
            while sorted[last].start - sorted[first].start >= window {
                inWindow -= sorted[first].writes
                first += 1
            }
            best = max(best, inWindow)
        }
        return best
    }
}
