/// Why an HTTP exchange produced no complete response.
///
/// The kinds are told apart so callers can decide whether to retry and tell operators
/// what failed: a refused connection never reached the server, a reset may have.
package struct TransportError: Error, Hashable, Sendable, CustomStringConvertible {
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
    package let detail: String

    private init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    /// The stable name of the kind, e.g. `timeout`.
    package var kindName: String { kind.rawValue }

    package var description: String { detail.isEmpty ? kind.rawValue : "\(kind.rawValue): \(detail)" }

    /// Equality by kind: `error == .timeout` reads naturally.
    package static func == (lhs: TransportError, rhs: TransportError) -> Bool { lhs.kind == rhs.kind }
    package func hash(into hasher: inout Hasher) { hasher.combine(kind) }

    /// The connect or total time limit passed.
    package static let timeout = TransportError(.timeout, "")
    /// Nobody listens at the address.
    package static let connectionRefused = TransportError(.connectionRefused, "")
    /// The connection broke or closed before a whole response arrived.
    package static let connectionReset = TransportError(.connectionReset, "")
    /// The host name did not resolve.
    package static let dnsFailure = TransportError(.dnsFailure, "")
    /// The TLS handshake or certificate verification failed.
    package static let tlsFailure = TransportError(.tlsFailure, "")
    /// The body was shorter than announced.
    package static let truncatedBody = TransportError(.truncatedBody, "")
    /// The body passed the configured size cap.
    package static let responseTooLarge = TransportError(.responseTooLarge, "")
    /// The URL could not be used.
    package static let invalidURL = TransportError(.invalidURL, "")
    /// Any other failure.
    package static let other = TransportError(.other, "")

    /// The same kind with a detail message.
    package func with(detail: String) -> TransportError { TransportError(kind, detail) }

    /// Whether the server may have received the request (so only idempotent calls may retry).
    package var requestMayHaveBeenSent: Bool {
        switch kind {
        case .connectionRefused, .dnsFailure, .tlsFailure, .invalidURL: false
        default: true
        }
    }

    /// Whether trying again later could succeed.
    package var isTransient: Bool {
        switch kind {
        case .invalidURL, .responseTooLarge, .tlsFailure: false
        default: true
        }
    }
}
