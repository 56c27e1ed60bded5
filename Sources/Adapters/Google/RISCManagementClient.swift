#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PayPulseCoding
import PayPulsePorts
import PayPulseTransport

/// Google's RISC management API: registers, reads, enables, disables and verifies the
/// project's Cross-Account Protection stream, authenticated by the service account's
/// self-signed token (no OAuth exchange). `paypulse risc` is its one user: no function
/// manages the stream.
///
/// Transient failures (no answer, 429, 5xx) are retried under the policy given; any other
/// answer is Google's decision and ends the call as a ``RISCManagementError``. The token
/// never reaches a log line or an error.
package struct RISCManagementClient: Sendable {
    /// Google's API base.
    package static let productionAPIBase = "https://risc.googleapis.com/v1beta"
    /// The `aud` Google requires of the service account's token.
    package static let audience = "https://risc.googleapis.com/google.identity.risc.v1beta.RiscManagementService"
    /// The one delivery method Google offers: it POSTs each event to the receiver.
    package static let pushDeliveryMethod = "https://schemas.openid.net/secevent/risc/delivery-method/push"

    /// The API base, without a trailing slash.
    package let apiBase: String
    private let serviceAccount: String
    private let signer: ServiceAccountSigner
    private let transport: any HTTPTransport
    private let retry: RetryPolicy
    private let logger: Logger
    private let now: @Sendable () -> Date

    /// Creates a client.
    /// - Parameters:
    ///   - apiBase: Google's base, or a local fake's (which may then take a loopback receiver).
    ///   - serviceAccount: The service account's `client_email`.
    ///   - signer: Signs the account's token with its key (see ``ServiceAccountSigner``).
    ///   - transport: The HTTP client.
    ///   - retry: Attempts, backoff and per-attempt timeout.
    ///   - logger: Receives the call, status, attempt and duration; never the token.
    ///   - now: The clock the token's `iat` comes from.
    package init(
        apiBase: String = productionAPIBase, serviceAccount: String, signer: @escaping ServiceAccountSigner, transport: any HTTPTransport,
        retry: RetryPolicy = .google, logger: Logger, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        var base = apiBase
        while base.hasSuffix("/") { base.removeLast() }
        self.apiBase = base
        self.serviceAccount = serviceAccount
        self.signer = signer
        self.transport = transport
        self.retry = retry
        self.logger = logger
        self.now = now
    }

    /// Registers (or replaces) the stream: Google will push `events` to `receiver`.
    /// `POST {base}/stream:update`.
    /// - Parameters:
    ///   - receiver: The endpoint that receives the events: `https://` on an authorized domain.
    ///   - events: Event type URIs; Google's supported list by default.
    /// - Throws: ``RISCManagementError``; before any request for a receiver Google refuses.
    package func updateStream(receiver: String, events: [String] = RISCEventType.googleSupported) async throws(RISCManagementError) {
        if let problem = RISCReceiverRule.problem(receiver: receiver, apiBase: apiBase) { throw .receiverNotAllowed(problem) }
        _ = try await call(.updateStream, body: RISCStream.updateBody(receiver: receiver, events: events))
    }

    /// The stream's configuration. `GET {base}/stream`.
    /// - Throws: ``RISCManagementError`` (`NOT_FOUND` before any registration).
    package func stream() async throws(RISCManagementError) -> RISCStream {
        let response = try await call(.stream)
        guard let stream = RISCStream(answer: response.body) else { throw .unreadable(status: response.status, "a stream configuration") }
        return stream
    }

    /// Whether events are delivered. `GET {base}/stream/status`.
    /// - Throws: ``RISCManagementError``.
    package func status() async throws(RISCManagementError) -> RISCStreamStatus {
        let response = try await call(.status)
        guard let status = RISCStreamStatus(answer: response.body) else { throw .unreadable(status: response.status, "a stream status") }
        return status
    }

    /// Enables or disables delivery. `POST {base}/stream/status:update`.
    /// - Returns: The status Google answered, or `status` when its answer names none.
    /// - Throws: ``RISCManagementError``.
    package func updateStatus(_ status: RISCStreamStatus) async throws(RISCManagementError) -> RISCStreamStatus {
        RISCStreamStatus(answer: try await call(.updateStatus, body: status.updateBody).body) ?? status
    }

    /// Asks Google to push a `verification` event carrying `state` to the receiver.
    /// `POST {base}/stream:verify`.
    /// - Throws: ``RISCManagementError``.
    package func verify(state: String) async throws(RISCManagementError) {
        _ = try await call(.verify, body: (try? JSONCoding.encode(["state": state])) ?? [])
    }
}

extension RISCManagementClient {
    /// The API's calls: method and path below the base; the raw value names the call in logs.
    enum Call: String {
        case updateStream = "stream:update"
        case stream
        case status = "stream/status"
        case updateStatus = "stream/status:update"
        case verify = "stream:verify"

        var method: String { self == .stream || self == .status ? "GET" : "POST" }
    }

    /// Sends `call` with a fresh token until a 2xx arrives, the failure is Google's decision,
    /// or the policy's attempts or time run out.
    /// - Throws: ``RISCManagementError``.
    func call(_ call: Call, body: [UInt8] = []) async throws(RISCManagementError) -> HTTPResponse {
        let token: String
        do {
            token = try signer(ServiceAccountClaims(email: serviceAccount, audience: Self.audience, issuedAt: now()))
        } catch {
            throw .signing(error)
        }
        var headers: HTTPHeaders = ["Authorization": "Bearer " + token, "Accept": "application/json"]
        if call.method == "POST" { headers.add(name: "Content-Type", value: "application/json") }
        let request = HTTPRequest(method: call.method, url: apiBase + "/" + call.rawValue, headers: headers, body: body, timeout: retry.attemptTimeout)
        do {
            return try await retry.run { number -> AttemptResult<HTTPResponse, RISCManagementError> in
                let started = ContinuousClock.now
                let failure: RISCManagementError
                do {
                    let response = try await transport.execute(request)
                    logger.debug("risc management call", metadata: metadata(call, number, since: started, ["status": "\(response.status)"]))
                    if (200..<300).contains(response.status) { return .success(response) }
                    failure = RISCManagementError(answer: response)
                } catch let error as TransportError {
                    failure = RISCManagementError(transport: error)
                } catch {
                    failure = error is CancellationError ? .cancelled : RISCManagementError(transport: .other.with(detail: "\(type(of: error))"))
                }
                return .failure(failure.redacting([token]), retryable: failure.isTransient)
            } willRetry: { number, error, delay in
                logger.warning("risc management call retrying", metadata: ["call": "\(call.rawValue)", "attempt": "\(number)", "error": "\(error)", "delay_ms": "\(delay.wholeMilliseconds)"])
            }
        } catch {
            throw error.cancelled ? .cancelled : error.failure
        }
    }

    private func metadata(_ call: Call, _ attempt: Int, since start: ContinuousClock.Instant, _ extra: Logger.Metadata) -> Logger.Metadata {
        var metadata: Logger.Metadata = [
            "call": "\(call.rawValue)", "attempt": "\(attempt)", "duration_ms": "\((ContinuousClock.now - start).wholeMilliseconds)",
        ]
        metadata.merge(extra) { _, new in new }
        return metadata
    }
}
