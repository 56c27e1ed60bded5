@testable import PayPulseLocalServer
import PayPulseTestSupport
import Synchronization
import Testing

/// `paypulse serve --port 0 --fake-google` picks its port before it binds (the handlers
/// need the stand-in Google's address first), so another process may take it in between.
@Suite("serve's own port pick")
struct PickedPortTests {
    /// Binds as the server does: a port another socket holds is `addressInUse`.
    private static func bind(_ port: Int) throws {
        guard FreePort.isFree(host: "127.0.0.1", port: port) else { throw LocalServerError.addressInUse(host: "127.0.0.1", port: port) }
    }

    @Test("a port taken between the pick and the bind is picked again, and serve starts on the next")
    func picksAgain() async throws {
        let taken = try RefusingLoopbackPort.make()
        let picks = Mutex([taken])
        let started = Mutex<[Int]>([])
        try await LocalServer.onPickedPort(host: "127.0.0.1", pick: {
            picks.withLock { $0.isEmpty ? FreePort.pick(host: "127.0.0.1") : $0.removeFirst() }
        }) { port in
            try Self.bind(port)
            started.withLock { $0.append(port) }
        }
        let ports = started.withLock { $0 }
        #expect(ports.count == 1)
        #expect(ports.first != taken)
    }

    @Test("when every pick is taken, serve stops after a few tries with the port-in-use line")
    func givesUp() async throws {
        let taken = try RefusingLoopbackPort.make()
        let tries = Mutex(0)
        await #expect(throws: LocalServerError.addressInUse(host: "127.0.0.1", port: taken)) {
            try await LocalServer.onPickedPort(host: "127.0.0.1", pick: { tries.withLock { $0 += 1 }; return taken }) { try Self.bind($0) }
        }
        #expect(tries.withLock { $0 } == 5)
    }
}
