import PayPulseTransport

/// Sends one request at a time through `inner`. moto_server is not thread-safe: its secret
/// lookups iterate a dictionary that a concurrent CreateSecret resizes, and it answers 500
/// "dictionary changed size during iteration". Tests that share a moto server talk to it
/// through this; the production client stays concurrent (AWS has no such bug).
package final class SerializingTransport: HTTPTransport {
    private let inner: any HTTPTransport
    private let gate = Gate()

    /// Wraps `inner`.
    package init(_ inner: any HTTPTransport) { self.inner = inner }

    package func execute(_ request: HTTPRequest) async throws -> HTTPResponse {
        await gate.enter()
        do {
            let response = try await inner.execute(request)
            await gate.leave()
            return response
        } catch {
            await gate.leave()
            throw error
        }
    }

    /// A FIFO async mutex.
    private actor Gate {
        private var busy = false
        private var waiters: [CheckedContinuation<Void, Never>] = []

        func enter() async {
            guard busy else {
                busy = true
                return
            }
            await withCheckedContinuation { waiters.append($0) }
        }

        func leave() {
            if waiters.isEmpty {
                busy = false
            } else {
                waiters.removeFirst().resume()
            }
        }
    }
}
