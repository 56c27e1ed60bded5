import PayPulsePorts
import PayPulseTransport

/// One failed attempt, classified: the error to report, whether another attempt may
/// help, and how long the server asked us to wait.
struct GoogleFailure: Sendable {
    var error: GoogleOAuthError
    var retryable = false
    var retryAfter: Duration?

    /// Classifies a non-2xx answer. Only 429 and 5xx are retried: every 4xx is Google's
    /// considered refusal of this request, and sending it again changes nothing.
    init(response: HTTPResponse, endpoint: GoogleEndpoint) {
        let status = response.status
        let body = GoogleErrorBody(body: response.body)
        let httpCode = "http_\(status)"
        if status == 429 || (500..<600).contains(status) {
            let detail = [body?.error, body?.detail].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ": ")
            error = GoogleOAuthError(kind: .transient, code: httpCode, detail: detail)
            retryable = true
            if status == 429 || status == 503 { retryAfter = Self.retryAfter(response.headers["Retry-After"]) }
            return
        }
        guard let body, (400..<500).contains(status) else {
            error = GoogleOAuthError(kind: .rejected, code: httpCode, detail: "HTTP \(status) without a Google error body")
            return
        }
        let kind: GoogleOAuthError.Kind =
            switch body.error {
            case "invalid_grant": .invalidGrant
            // A grant issued to another client and a wrong client ID of ours both get these:
            // the domain tells them apart with a probe.
            case "invalid_client", "unauthorized_client": .clientRefused
            case "deleted_client": .clientBroken
            case "invalid_token" where endpoint == .revoke: .invalidToken
            default: .rejected
            }
        error = GoogleOAuthError(kind: kind, code: body.error, detail: body.detail)
    }

    /// Classifies an exchange that produced no answer. What `isTransient` (timeouts, refused
    /// and reset connections, truncated bodies) is retried; the rest (a bad URL, a TLS
    /// failure, an oversized answer) will not heal by itself: our configuration is wrong.
    init(transport: TransportError) {
        error = GoogleOAuthError(kind: transport.isTransient ? .transient : .clientBroken, code: transport.kindName, detail: transport.detail)
        retryable = transport.isTransient
    }

    /// Classifies anything else a transport threw, cancellation included: nothing is known
    /// about the grant, so the caller changes nothing.
    init(other: any Error) {
        let code = other is CancellationError ? "cancelled" : "transport_error"
        error = GoogleOAuthError(kind: .transient, code: code, detail: code == "cancelled" ? "" : String(describing: type(of: other)))
    }

    /// `Retry-After` in delta-seconds; the HTTP-date form is not worth parsing here (the
    /// jittered backoff is used instead).
    private static func retryAfter(_ value: String?) -> Duration? {
        guard let value, !value.isEmpty, value.utf8.count <= 6, let seconds = Int(value), seconds >= 0 else { return nil }
        return .seconds(seconds)
    }
}
