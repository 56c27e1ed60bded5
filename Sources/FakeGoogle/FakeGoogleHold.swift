import Foundation

/// Holds answers of ``FakeGoogleServer`` inside "Google" until released, so a test can act
/// while a refresh is in flight (say, store newer tokens) and then let it finish.
///
/// Each held request blocks its own server thread on a condition; nothing else waits.
package final class FakeGoogleHold: @unchecked Sendable {
    private let condition = NSCondition()
    private var released = false
    private var waiting = 0

    init() {}

    /// How many requests are held right now.
    package var heldCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return waiting
    }

    /// Whether ``release()`` was called.
    package var isReleased: Bool {
        condition.lock()
        defer { condition.unlock() }
        return released
    }

    /// Lets every held answer go and stops holding new ones. Idempotent.
    package func release() {
        condition.lock()
        released = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits (without blocking a concurrency thread) until `count` requests are held.
    /// - Returns: whether that happened before `timeout`. The default is generous because it
    ///   returns as soon as the requests are held; a loaded machine can delay the server's threads.
    package func waitUntilHeld(count: Int = 1, timeout: Duration = .seconds(60)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while heldCount < count {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    /// Blocks the calling server thread until released.
    func block() {
        condition.lock()
        waiting += 1
        while !released { condition.wait() }
        waiting -= 1
        condition.unlock()
    }
}
