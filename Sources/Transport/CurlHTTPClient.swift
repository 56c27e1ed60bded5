import CCurl
import Dispatch
import Synchronization

/// The one HTTP client of the project, over libcurl.
///
/// Transfers block, so they do not run on the Swift concurrency pool: each pooled easy handle
/// owns a serial Dispatch queue, and serial queues are served by Dispatch's overcommit
/// threads, one per busy queue. (A concurrent queue would be capped at the core count on
/// Linux, so a few stalled peers could hold every transfer back.) The exception is a client
/// configured with ``Configuration/inlineTransfers``: one transfer at a time in the process
/// then runs on the calling thread. Each handle keeps its connection cache, so a refresh
/// run of thousands of calls reuses a few connections. Safe to call concurrently.
package final class CurlHTTPClient: HTTPTransport {
    /// Limits that apply to every request.
    package struct Configuration: Sendable {
        /// The limit for establishing a connection (TCP and TLS).
        package var connectTimeout: Duration
        /// The largest response body accepted.
        package var maxResponseBytes: Int
        /// How many idle handles (and their connections) to keep.
        package var maxIdleHandles: Int
        /// The file of trusted CA certificates (`CURLOPT_CAINFO`); `nil` keeps libcurl's
        /// built-in path. Debian's libcurl looks in `/etc/ssl/certs/ca-certificates.crt`,
        /// which Amazon Linux lacks, so a bundle carrying that libcurl names the host's file.
        package var caBundlePath: String?
        /// Whether a transfer may run on the calling thread (see ``InlineTransfers``): for a
        /// process that serves one API request at a time with a few sequential calls, never
        /// for a refresh run with many transfers in flight.
        package var inlineTransfers: Bool

        /// Creates a configuration.
        package init(
            connectTimeout: Duration = .seconds(3), maxResponseBytes: Int = 8 << 20, maxIdleHandles: Int = 32,
            caBundlePath: String? = nil, inlineTransfers: Bool = false
        ) {
            self.connectTimeout = connectTimeout
            self.maxResponseBytes = maxResponseBytes
            self.maxIdleHandles = maxIdleHandles
            self.caBundlePath = caBundlePath
            self.inlineTransfers = inlineTransfers
        }
    }

    private let configuration: Configuration
    private let idleHandles = Mutex<[CurlEasyHandle]>([])

    /// Creates a client.
    package init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    package func execute(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let handle = checkout() else {
            // Most likely libcurl could not be loaded; say why (a missing library, say).
            let reason = paypulse_curl_load_error().map { String(cString: $0) } ?? "libcurl could not create a handle"
            throw TransportError.other.with(detail: reason)
        }
        if configuration.inlineTransfers, let result = InlineTransfers.run({ () -> Result<HTTPResponse, TransportError> in
            let result = handle.perform(request, configuration: configuration)
            checkin(handle)
            return result
        }) {
            return try result.get()
        }
        return try await withCheckedThrowingContinuation { continuation in
            handle.queue.async {
                let result = handle.perform(request, configuration: self.configuration)
                self.checkin(handle)
                continuation.resume(with: result)
            }
        }
    }

    private func checkout() -> CurlEasyHandle? {
        idleHandles.withLock { $0.popLast() } ?? CurlEasyHandle()
    }

    private func checkin(_ handle: CurlEasyHandle) {
        idleHandles.withLock { handles in
            if handles.count < configuration.maxIdleHandles { handles.append(handle) }
        }
    }
}

/// The one transfer at a time in the process that may run on the calling thread instead
/// of a handle's queue (for clients configured with `inlineTransfers`).
///
/// A transfer on a queue costs two thread hand-offs (to the queue and back to the Swift
/// pool): two context switches, futex calls and Dispatch's and the executor's bookkeeping,
/// about a fifth of a warm API invocation's CPU. A process that serves one API request at a
/// time can afford to block a pool thread for its few short calls; a refresh run, with many
/// transfers in flight, cannot. So the composition root opts in per client (the API
/// functions' clients do), and even then one transfer at a time in the whole process runs
/// inline: concurrent ones (`async let`) still go to their queues, so at most one pool
/// thread is ever held by a transfer.
enum InlineTransfers {
    /// The one inline transfer at a time.
    private static let busy = Atomic<Bool>(false)

    /// Runs `body` inline when no other transfer runs inline; `nil` otherwise.
    static func run<T>(_ body: () -> T) -> T? {
        guard busy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else { return nil }
        defer { busy.store(false, ordering: .releasing) }
        return body()
    }
}
