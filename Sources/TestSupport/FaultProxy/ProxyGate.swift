import Foundation
import Synchronization

/// Where a request ``ProxyFault/hold(_:)`` holds waits: the proxy's thread for that
/// connection blocks until the test calls ``open()`` (or ``limit`` passes, so a test that
/// failed before opening it does not hang the proxy), then forwards the request.
package final class ProxyGate: Sendable, Hashable {
    private struct State { var held = 0, open = false }
    private let state = Mutex(State())
    /// How long a request waits at most.
    package let limit: Duration

    /// A closed gate.
    package init(limit: Duration = .seconds(30)) { self.limit = limit }

    /// Requests that reached the gate so far (held now, or let through).
    package var held: Int { state.withLock { $0.held } }

    /// Lets every held request, and every later one, through.
    package func open() { state.withLock { $0.open = true } }

    /// Waits until `count` requests reached the gate, or `timeout` passed.
    /// - Returns: whether they did.
    package func waitUntilHeld(_ count: Int = 1, timeout: Duration = .seconds(30)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while held < count {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return true
    }

    /// Blocks the calling (proxy) thread until the gate opens or the limit passes.
    func pass() {
        state.withLock { $0.held += 1 }
        let deadline = ContinuousClock.now + limit
        while !state.withLock({ $0.open }), ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.005) }
    }

    package static func == (left: ProxyGate, right: ProxyGate) -> Bool { left === right }
    package func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
