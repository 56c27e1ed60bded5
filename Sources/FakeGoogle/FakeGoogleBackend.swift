import Foundation
import PayPulseTransport
import Synchronization

/// The request path of ``FakeGoogleServer``, run by ``ScriptedHTTPServer`` on each
/// connection's own thread, where blocking (latency, holds) is allowed.
final class FakeGoogleBackend: Sendable {
    let state: Mutex<FakeGoogleState>
    let risc: FakeGoogleRISC
    let riscKeys: FakeGoogleRISCKeys

    /// - Parameter transport: What the RISC transmitter pushes events with.
    init(clientIDs: [String], transport: any HTTPTransport = CurlHTTPClient()) {
        state = Mutex(FakeGoogleState(clientIDs: clientIDs))
        let transmitter = FakeGoogleRISCTransmitter(clientIDs: clientIDs, transport: transport)
        risc = FakeGoogleRISC(clientIDs: clientIDs, transmitter: transmitter)
        riscKeys = FakeGoogleRISCKeys(transmitter: transmitter)
        risc.follow { [weak self] event in self?.state.withLock { $0.grants.follow(event) } }
    }

    func handle(_ raw: ScriptedHTTPServer.Request) -> ScriptedHTTPServer.Action {
        // The RISC management API keeps its own state; no fault or hold applies to it.
        if raw.target.hasPrefix(FakeGoogleRISC.basePath + "/") { return risc.answer(raw).action }
        if raw.method == "GET", let published = riscKeys.answer(path: raw.target) { return published.action }
        let request = FakeGoogleRequest(raw)
        let (reply, hold, latency) = state.withLock { $0.arrive(request) }
        defer { state.withLock { $0.depart(request) } }
        if latency > .zero {
            let (seconds, attoseconds) = latency.components
            Thread.sleep(forTimeInterval: Double(seconds) + Double(attoseconds) / 1e18)
        }
        hold?.block()
        return reply.action
    }
}
