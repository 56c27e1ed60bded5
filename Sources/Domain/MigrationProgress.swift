import Synchronization

/// What a running ``GrantMigration`` has done, readable from another task (a progress line
/// every few seconds), and the switch that asks it to stop.
///
/// A stop request lets the copies in flight finish and starts no new one; the run then ends
/// with ``GrantMigration/Interrupted``, whose cursor (the listing position of the page in
/// flight) a new run resumes from. Copies are idempotent, so redoing part of a page is safe.
package final class MigrationProgress: Sendable {
    /// The counts at one moment.
    package struct Snapshot: Sendable, Equatable {
        /// Grants listed so far (the source says no total before its listing ends).
        package var listed: Int
        /// Grants finished, whatever their outcome.
        package var done: Int
        /// Whether the listing has reached its end.
        package var listingDone: Bool
        /// Where a new run resumes: the listing position of the page in flight (`nil`: the start).
        package var resumeCursor: String?
        /// Time since the run began.
        package var elapsed: Duration

        /// Creates a snapshot.
        package init(listed: Int, done: Int, listingDone: Bool, resumeCursor: String?, elapsed: Duration) {
            self.listed = listed
            self.done = done
            self.listingDone = listingDone
            self.resumeCursor = resumeCursor
            self.elapsed = elapsed
        }

        /// Grants finished per second so far.
        package var rate: Double {
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            return seconds > 0 ? Double(done) / seconds : 0
        }

        /// `120 of 400 listed done (listing goes on), 10.0 grants/s, about 28s left`: the time
        /// left is for the grants listed so far.
        package var line: String {
            let rate = self.rate
            let rateText = (rate * 10).rounded() / 10
            var text = "\(done) of \(listed) listed done\(listingDone ? "" : " (listing goes on)"), \(rateText) grants/s"
            if rate > 0 { text += ", about \(Self.duration(Double(listed - done) / rate)) left" }
            return text
        }

        /// `2h05m`, `3m07s`, `28s`.
        static func duration(_ seconds: Double) -> String {
            let whole = Int(seconds.rounded(.up))
            let (hours, minutes, rest) = (whole / 3600, whole / 60 % 60, whole % 60)
            func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
            if hours > 0 { return "\(hours)h\(two(minutes))m" }
            if minutes > 0 { return "\(minutes)m\(two(rest))s" }
            return "\(rest)s"
        }
    }

    private struct State {
        var listed = 0
        var done = 0
        var listingDone = false
        var resumeCursor: String?
        var stopRequested = false
    }

    private let state = Mutex(State())
    private let started = ContinuousClock.now

    /// Starts counting now.
    package init() {}

    /// The counts now.
    package var snapshot: Snapshot {
        let elapsed = ContinuousClock.now - started
        return state.withLock {
            Snapshot(listed: $0.listed, done: $0.done, listingDone: $0.listingDone, resumeCursor: $0.resumeCursor, elapsed: elapsed)
        }
    }

    /// Asks the run to start no new copy (a SIGINT, a test).
    package func stop() { state.withLock { $0.stopRequested = true } }

    /// Whether ``stop()`` was called.
    package var isStopRequested: Bool { state.withLock { $0.stopRequested } }

    func beginPage(at cursor: String?) { state.withLock { $0.resumeCursor = cursor } }
    func listed(_ count: Int) { state.withLock { $0.listed += count } }
    func finishedOne() { state.withLock { $0.done += 1 } }
    func endListing() { state.withLock { $0.listingDone = true; $0.resumeCursor = nil } }
}
