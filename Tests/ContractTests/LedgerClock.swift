#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

/// A clock the ledger tests move by hand, starting at a whole second of the real time (so
/// the records a test writes expire in the future of a peer that might read the real clock).
final class LedgerClock: Sendable {
    /// Where the clock started.
    let start: Date
    private let date: Mutex<Date>

    init() {
        start = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        date = Mutex(start)
    }

    /// The current fake time.
    @Sendable func now() -> Date { date.withLock { $0 } }

    /// `seconds` after the start.
    func at(_ seconds: Double) -> Date { start.addingTimeInterval(seconds) }

    /// Sets the clock to `seconds` after the start.
    func set(_ seconds: Double) { date.withLock { $0 = start.addingTimeInterval(seconds) } }
}
