/// Why an HTTP exchange produced no complete response.
///
/// The kinds are told apart so callers can decide whether to retry and tell operators
/// what failed: a refused connection never reached the server, a reset may have.
public struct TransportError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Kind: String, Hashable, Sendable {
        case timeout
        case connectionRefused = "connection_refused"
        case connectionReset = "connection_reset"
        case dnsFailure = "dns_failure"
        case tlsFailure = "tls_failure"
        case truncatedBody = "truncated_body"
        case responseTooLarge = "response_too_large"
        case invalidURL = "invalid_url"
        case other
    }

    private let kind: Kind
    /// libcurl's explanation, for logs; never contains request headers or bodies.
    public let detail: String

    private init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    /// The stable name of the kind, e.g. `timeout`.
    public var kindName: String { kind.rawValue }

    public var description: String { detail.isEmpty ? kind.rawValue : "\(kind.rawValue): \(detail)" }

    /// Equality by kind: `error == .timeout` reads naturally.
    public static func == (lhs: TransportError, rhs: TransportError) -> Bool { lhs.kind == rhs.kind }
    public func hash(into hasher: inout Hasher) { hasher.combine(kind) }

    /// The connect or total time limit passed.
    public static let timeout = TransportError(.timeout, "")
    /// Nobody listens at the address.
    public static let connectionRefused = TransportError(.connectionRefused, "")
    /// The connection broke or closed before a whole response arrived.
    public static let connectionReset = TransportError(.connectionReset, "")
    /// The host name did not resolve.
    public static let dnsFailure = TransportError(.dnsFailure, "")
    /// The TLS handshake or certificate verification failed.
    public static let tlsFailure = TransportError(.tlsFailure, "")
    /// The body was shorter than announced.
    public static let truncatedBody = TransportError(.truncatedBody, "")
    /// The body passed the configured size cap.
    public static let responseTooLarge = TransportError(.responseTooLarge, "")
    /// The URL could not be used.
    public static let invalidURL = TransportError(.invalidURL, "")
    /// Any other failure.
    public static let other = TransportError(.other, "")

    /// The same kind with a detail message.
    public func with(detail: String) -> TransportError { TransportError(kind, detail) }

    /// Whether the server may have received the request (so only idempotent calls may retry).
    public var requestMayHaveBeenSent: Bool {
        switch kind {
        case .connectionRefused, .dnsFailure, .tlsFailure, .invalidURL: false
        default: true
        }
    }

    /// Whether trying again later could succeed.
    public var isTransient: Bool {
        switch kind {
        case .invalidURL, .responseTooLarge, .tlsFailure: false
        default: true
        }
    }
}
