#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PayPulseCoding
import PayPulsePorts
import PayPulseTransport

/// A client for one AWS service over the AWS JSON protocol: `POST /` with `X-Amz-Target`,
/// `application/x-amz-json-1.x` and a SigV4 signature, retried with backoff on throttling,
/// 5xx and connection failures. A 4xx caller error is never retried.
package struct AWSJSONClient: Sendable {
    /// Who is calling which service where.
    package struct Settings: Sendable {
        /// The service spoken.
        package var service: AWSService
        /// The region signed for.
        package var region: String
        /// The endpoint URL.
        package var endpoint: String
        /// The credentials signed with.
        package var credentials: AWSCredentials

        /// Creates settings.
        package init(service: AWSService, region: String, endpoint: String, credentials: AWSCredentials) {
            self.service = service
            self.region = region
            self.endpoint = endpoint
            self.credentials = credentials
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
    package init(
        settings: Settings, transport: any HTTPTransport, retryPolicy: RetryPolicy = .aws,
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

    /// Calls `operation` with `input` and reads the answer.
    /// - Throws: ``AWSError`` for an error answer (after retries when retryable),
    ///   `TransportError` when no answer came, ``AWSClientError`` for an unreadable one.
    /// Only a declared ``AWSOperation`` can be called, so what IAM must allow is read from
    /// the clients' declarations.
    /// - Parameter budget: when given, the whole call (every attempt and wait) ends within
    ///   it: no attempt starts after it and none outlasts it (a caller that must answer soon).
    func call<Output: AWSJSONOutput>(
        _ operation: AWSOperation, _ input: some AWSJSONInput, as output: Output.Type = Output.self, within budget: Duration? = nil
    ) async throws -> Output {
        precondition(operation.service == settings.service, "\(operation) called on a \(settings.service.signingName) client")
        let response = try await send(operation: operation.name, body: input.json.jsonBytes, within: budget)
        do {
            return try Output.read(response.body)
        } catch {
            throw AWSClientError.unreadableResponse(operation: operation.name, status: response.status)
        }
    }

    private func send(operation: String, body: [UInt8], within budget: Duration?) async throws -> HTTPResponse {
        let started = ContinuousClock.now
        var policy = retryPolicy
        if let budget { policy.totalBudget = min(policy.totalBudget, budget) }
        let deadline = budget.map { _ in started + policy.totalBudget }
        do {
            return try await policy.run { number -> AttemptResult<HTTPResponse, any Error> in
                do {
                    // Signed per attempt: a retry after a long wait needs a fresh date. Under a
                    // budget an attempt gets what is left of it, so a hanging peer costs no more.
                    let timeout = deadline.map { min(policy.attemptTimeout, max($0 - ContinuousClock.now, .milliseconds(1))) } ?? policy.attemptTimeout
                    let response = try await transport.execute(signedRequest(operation: operation, body: body, timeout: timeout))
                    if (200..<300).contains(response.status) {
                        logger.debug("aws call", metadata: callMetadata(operation, number - 1, started, status: response.status))
                        return .success(response)
                    }
                    let error = AWSError.decode(status: response.status, headerType: response.headers["X-Amzn-ErrorType"], body: response.body)
                    return .failure(error, retryable: error.isRetryable)
                } catch let error as TransportError {
                    return .failure(error, retryable: error.isTransient)
                } catch {
                    return .failure(error, retryable: false)
                }
            } willRetry: { number, failure, delay in
                var metadata = callMetadata(operation, number, started, error: failure)
                metadata["delay_ms"] = "\(delay.wholeMilliseconds)"
                logger.warning("aws call retrying", metadata: metadata)
            }
        } catch {
            logger.debug("aws call failed", metadata: callMetadata(operation, error.attempts - 1, started, error: error.failure))
            if error.cancelled { throw CancellationError() }
            throw error.failure
        }
    }

    private func signedRequest(operation: String, body: [UInt8], timeout: Duration) -> HTTPRequest {
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
        return HTTPRequest(method: "POST", url: endpoint.url, headers: headers, body: body, timeout: timeout)
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

/// An operation's input: its one encoding is its JSON as a value, which
/// ``JSONValue/jsonBytes`` writes (keys sorted; AWS reads members in any order).
protocol AWSJSONInput {
    /// The request body as a JSON value.
    var json: JSONValue { get }
}

/// An operation's answer: its one decoding reads the members of the parsed object under
/// `Codable`'s `decodeIfPresent` rules (missing or `null` optionals are `nil`; a wrong type
/// throws), and ignores members it does not know.
protocol AWSJSONOutput {
    /// Reads the answer.
    /// - Throws: ``JSONTypeMismatch`` for a member of the wrong type.
    init(json fields: [String: JSONValue]) throws(JSONTypeMismatch)
}

extension AWSJSONOutput {
    /// The answer in `payload` (an empty body is `{}`).
    ///
    /// The strict parser reads it: AWS's dates are fractional epoch seconds, which the
    /// readers take as `Double` whether written `1.5` or `1`, and no reader takes an integer,
    /// so how a number is written never matters. What the strict parser refuses (a repeated
    /// key, nesting past 32, a lone surrogate) is read as `JSONDecoder` reads it.
    /// - Throws: `JSONDecoder`'s error for bytes that are not JSON, ``JSONTypeMismatch``
    ///   for a document that is not an object or a member of the wrong type.
    static func read(_ payload: [UInt8]) throws -> Self {
        let bytes = payload.isEmpty ? Array("{}".utf8) : payload
        let value = try (try? JSONBodyParser.parse(bytes)) ?? JSONValue.decode(bytes)
        guard case .object(let fields) = value else { throw JSONTypeMismatch(key: "") }
        return try Self(json: fields)
    }
}

extension JSONValue {
    /// An object of the members that are not `nil`, as AWS's optional members are left out.
    static func members(_ pairs: KeyValuePairs<String, JSONValue?>) -> JSONValue {
        var fields: [String: JSONValue] = [:]
        fields.reserveCapacity(pairs.count)
        for (key, value) in pairs { if let value { fields[key] = value } }
        return .object(fields)
    }

    /// `.string`, or `nil` (member left out) for `nil`.
    static func stringIfPresent(_ text: String?) -> JSONValue? { text.map(JSONValue.string) }

    /// An array of strings.
    static func strings(_ texts: [String]) -> JSONValue { .array(texts.map(JSONValue.string)) }
}

/// An AWS service spoken over the AWS JSON protocol.
package struct AWSService: Sendable, Hashable {
    /// The SigV4 signing name, e.g. `secretsmanager`.
    package let signingName: String
    /// The prefix of `X-Amz-Target`, e.g. `secretsmanager` or `DynamoDB_20120810`.
    package let targetPrefix: String
    /// The JSON protocol version for `Content-Type`: `1.1` or `1.0`.
    package let jsonVersion: String

    /// AWS Secrets Manager (AWS JSON 1.1).
    package static let secretsManager = AWSService(signingName: "secretsmanager", targetPrefix: "secretsmanager", jsonVersion: "1.1")

    /// Amazon DynamoDB (AWS JSON 1.0).
    package static let dynamoDB = AWSService(signingName: "dynamodb", targetPrefix: "DynamoDB_20120810", jsonVersion: "1.0")

    /// AWS Key Management Service (AWS JSON 1.1).
    package static let kms = AWSService(signingName: "kms", targetPrefix: "TrentService", jsonVersion: "1.1")

    /// Amazon EventBridge (AWS JSON 1.1).
    package static let eventBridge = AWSService(signingName: "events", targetPrefix: "AWSEvents", jsonVersion: "1.1")

    /// The regional endpoint AWS serves this service at.
    package func regionalEndpoint(region: String) -> String {
        let suffix = region.hasPrefix("cn-") ? "amazonaws.com.cn" : "amazonaws.com"
        return "https://\(signingName).\(region).\(suffix)"
    }

}

/// A parsed `http(s)://host[:port][/path]` endpoint: what the signer needs (host, path)
/// and what the transport needs (the URL).
struct AWSEndpoint: Sendable, Equatable {
    /// The URL to POST to.
    let url: String
    /// The `Host` header value: host, plus port when it is not the scheme's default.
    let host: String
    /// The request path, `/` when the endpoint has none.
    let path: String

    /// Parses an endpoint, or returns `nil` when it is not an absolute http(s) URL.
    init?(_ string: String) {
        let scheme: String
        if string.hasPrefix("https://") {
            scheme = "https"
        } else if string.hasPrefix("http://") {
            scheme = "http"
        } else {
            return nil
        }
        let rest = string.dropFirst(scheme.count + 3)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.isEmpty, !authority.contains("@") else { return nil }
        var path = String(rest.dropFirst(authority.count).prefix { $0 != "?" && $0 != "#" })
        if path.isEmpty { path = "/" }
        let defaultPort = scheme == "https" ? ":443" : ":80"
        host = authority.hasSuffix(defaultPort) ? String(authority.dropLast(defaultPort.count)) : String(authority)
        self.path = path
        url = "\(scheme)://\(authority)\(path)"
    }
}

/// One AWS API operation a client calls, and what IAM must allow for it: each client
/// declares its operations beside the methods that call them, and ``AWSJSONClient`` calls
/// nothing else, so `paypulse iam` reads a function's permissions from the code.
package struct AWSOperation: Sendable, Hashable, CustomStringConvertible {
    /// What an operation's IAM action is granted on.
    package enum ResourceKind: String, Sendable, Hashable {
        /// A secret (its ARN).
        case secret
        /// A DynamoDB table.
        case table
        /// A global secondary index of a table (a `Query` with `IndexName`).
        case index
        /// A KMS key.
        case key
        /// An EventBridge event bus.
        case bus
        /// Nothing narrower than `*`: the action takes no resource (`ListSecrets`, `CreateKey`).
        case any
    }

    /// The service spoken.
    package let service: AWSService
    /// The API operation, e.g. `GetSecretValue`: the `X-Amz-Target` suffix.
    package let name: String
    /// What its IAM action is granted on.
    package let resource: ResourceKind

    /// Declares an operation.
    package init(_ service: AWSService, _ name: String, on resource: ResourceKind) {
        self.service = service
        self.name = name
        self.resource = resource
    }

    /// The IAM action, e.g. `secretsmanager:GetSecretValue`.
    package var action: String { "\(service.signingName):\(name)" }

    package var description: String { "\(action) on \(resource.rawValue)" }
}
