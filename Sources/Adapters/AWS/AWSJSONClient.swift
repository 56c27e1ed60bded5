#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PayPulseSigV4
import PayPulseTransport

/// A client for one AWS service over the AWS JSON protocol: `POST /` with `X-Amz-Target`,
/// `application/x-amz-json-1.x` and a SigV4 signature, retried with backoff on throttling,
/// 5xx and connection failures. A 4xx caller error is never retried.
public struct AWSJSONClient: Sendable {
    /// Who is calling which service where.
    public struct Settings: Sendable {
        /// The service spoken.
        public var service: AWSService
        /// The region signed for.
        public var region: String
        /// The endpoint URL.
        public var endpoint: String
        /// The credentials signed with.
        public var credentials: AWSCredentials
        /// The time limit of one attempt.
        public var timeout: Duration

        /// Creates settings.
        public init(service: AWSService, region: String, endpoint: String, credentials: AWSCredentials, timeout: Duration = .seconds(5)) {
            self.service = service
            self.region = region
            self.endpoint = endpoint
            self.credentials = credentials
            self.timeout = timeout
        }
    }

    private let settings: Settings
    private let endpoint: AWSEndpoint
    private let signer: SigV4Signer
    private let transport: any HTTPTransport
    private let retryPolicy: RetryPolicy
    private let logger: Logger
    private let now: @Sendable () -> Date

    /// Creates a client.
    /// - Throws: ``AWSClientError/invalidEndpoint`` when the endpoint is not an http(s) URL.
    public init(
        settings: Settings, transport: any HTTPTransport, retryPolicy: RetryPolicy = .standard,
        logger: Logger, now: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        guard let endpoint = AWSEndpoint(settings.endpoint) else {
            throw AWSClientError.invalidEndpoint(settings.endpoint)
        }
        self.settings = settings
        self.endpoint = endpoint
        self.signer = SigV4Signer(credentials: settings.credentials, region: settings.region, service: settings.service.signingName)
        self.transport = transport
        self.retryPolicy = retryPolicy
        self.logger = logger
        self.now = now
    }

    /// Calls `operation` with `input` and decodes the answer.
    /// - Throws: ``AWSError`` for an error answer (after retries when retryable),
    ///   `TransportError` when no answer came, ``AWSClientError`` for an unreadable one.
    public func call<Input: Encodable, Output: Decodable>(
        _ operation: String, _ input: Input, as output: Output.Type = Output.self
    ) async throws -> Output {
        let body = try [UInt8](JSONEncoder().encode(input))
        let response = try await send(operation: operation, body: body)
        let payload = response.body.isEmpty ? Array("{}".utf8) : response.body
        do {
            return try JSONDecoder().decode(Output.self, from: Data(payload))
        } catch {
            throw AWSClientError.unreadableResponse(operation: operation, status: response.status)
        }
    }

    private func send(operation: String, body: [UInt8]) async throws -> HTTPResponse {
        let started = ContinuousClock.now
        var attempt = 0
        while true {
            let failure: any Error
            do {
                let response = try await transport.execute(signedRequest(operation: operation, body: body))
                if (200..<300).contains(response.status) {
                    logger.debug("aws call", metadata: callMetadata(operation, attempt, started, status: response.status))
                    return response
                }
                failure = AWSError.decode(status: response.status, headerType: response.headers["X-Amzn-ErrorType"], body: response.body)
            } catch {
                failure = error
            }
            attempt += 1
            let elapsed = ContinuousClock.now - started
            guard Self.isRetryable(failure), attempt < retryPolicy.maxAttempts, elapsed < retryPolicy.totalBudget else {
                logger.debug("aws call failed", metadata: callMetadata(operation, attempt - 1, started, error: failure))
                throw failure
            }
            let delay = min(retryPolicy.delay(afterAttempt: attempt - 1, random: Double.random(in: 0...1)), retryPolicy.totalBudget - elapsed)
            var metadata = callMetadata(operation, attempt, started, error: failure)
            metadata["delay_ms"] = "\(delay.wholeMilliseconds)"
            logger.warning("aws call retrying", metadata: metadata)
            try await Task.sleep(for: delay)
        }
    }

    private func signedRequest(operation: String, body: [UInt8]) -> HTTPRequest {
        let contentType = "application/x-amz-json-\(settings.service.jsonVersion)"
        let target = "\(settings.service.targetPrefix).\(operation)"
        let unsigned = [
            SigV4Header(name: "Host", value: endpoint.host),
            SigV4Header(name: "Content-Type", value: contentType),
            SigV4Header(name: "X-Amz-Target", value: target),
        ]
        let signed = signer.sign(
            SigV4Request(method: "POST", path: endpoint.path, query: "", headers: unsigned, body: body), date: now()
        )
        var headers = HTTPHeaders()
        // libcurl sends Host from the URL; sending it twice would break the signature.
        for header in signed.headers where header.name.lowercased() != "host" {
            headers.add(name: header.name, value: header.value)
        }
        return HTTPRequest(method: "POST", url: endpoint.url, headers: headers, body: body, timeout: settings.timeout)
    }

    private static func isRetryable(_ error: any Error) -> Bool {
        switch error {
        case let error as AWSError: error.isRetryable
        case let error as TransportError: error.isTransient
        default: false
        }
    }

    private func callMetadata(
        _ operation: String, _ retries: Int, _ started: ContinuousClock.Instant, status: Int? = nil, error: (any Error)? = nil
    ) -> Logger.Metadata {
        var metadata: Logger.Metadata = [
            "service": "\(settings.service.signingName)", "operation": "\(operation)", "retries": "\(retries)",
            "duration_ms": "\((ContinuousClock.now - started).wholeMilliseconds)",
        ]
        if let status { metadata["status"] = "\(status)" }
        if let error { metadata["error"] = "\(error)" }
        return metadata
    }
}

extension Duration {
    /// Whole milliseconds, for logs.
    var wholeMilliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}
