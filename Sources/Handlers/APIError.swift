import PayPulseDomain
import PayPulsePorts

/// An error answer with a stable machine code and a readable message.
package struct APIError: Error, Sendable, Equatable {
    /// The HTTP status.
    package let status: Int
    /// The stable code, e.g. `invalid_request`.
    package let code: String
    /// A readable message; never contains a token or a secret.
    package let message: String
    /// Extra headers (e.g. `WWW-Authenticate`, `Allow`).
    package let headers: [String: String]

    /// Creates an error.
    package init(status: Int, code: String, message: String, headers: [String: String] = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    /// The response that carries it.
    package var response: APIResponse { .error(status: status, code: code, message: message, headers: headers) }

    /// 400: the request is malformed.
    package static func invalidRequest(_ message: String) -> APIError { APIError(status: 400, code: "invalid_request", message: message) }

    /// 401: the one generic answer to every authentication failure.
    package static let unauthorized = APIError(
        status: 401, code: "unauthorized", message: AuthenticationError.publicMessage,
        headers: ["www-authenticate": AuthenticationError.challenge]
    )

    /// 403: the grant lacks a scope the app must request (with `addScopes`).
    package static func missingScope(_ scope: String) -> APIError {
        APIError(status: 403, code: "missing_scope", message: "The Google grant lacks the scope \(scope); request it and send the tokens again.")
    }

    /// 400: Google answered `invalid_grant` for the refresh token sent: the grant is dead.
    package static let invalidGrant = APIError(
        status: 400, code: "invalid_grant",
        message: "Google no longer accepts this grant (revoked or expired); sign in with Google again and send the new tokens."
    )

    /// 400: Google refused the refresh token as issued to another OAuth client.
    package static let foreignClient = APIError(
        status: 400, code: "foreign_client",
        message: "These tokens were issued to another OAuth client; sign in with Google from the PayPulse app and send those tokens."
    )

    /// 404: nothing there.
    package static func notFound(_ message: String) -> APIError { APIError(status: 404, code: "not_found", message: message) }

    /// 405: wrong method for this route.
    package static func methodNotAllowed(allowed: String) -> APIError {
        APIError(status: 405, code: "method_not_allowed", message: "Use \(allowed) on this route.", headers: ["allow": allowed])
    }

    /// 409: the stored data kept changing under us.
    package static let conflict = APIError(status: 409, code: "conflict", message: "The stored tokens changed while this request ran; send it again.")

    /// 413: the body is over the limit.
    package static func payloadTooLarge(limit: Int) -> APIError {
        APIError(status: 413, code: "payload_too_large", message: "The request body is larger than \(limit / 1024) KiB.")
    }

    /// 415: a body type this route does not read.
    package static let unsupportedMediaType = APIError(
        status: 415, code: "unsupported_media_type", message: "Send application/json or application/x-www-form-urlencoded."
    )

    /// 429: the user's allowance of this request is spent; nothing was sent to Google or written.
    package static func tooManyRequests(retryAfter: Int) -> APIError {
        APIError(
            status: 429, code: "too_many_requests", message: "Too many requests for this user; try again in \(retryAfter) s.",
            headers: ["retry-after": "\(retryAfter)"]
        )
    }

    /// 503: the store failed after retries while reading; nothing was written.
    package static let upstreamUnavailable = APIError(
        status: 503, code: "upstream_unavailable", message: "Storage is unavailable right now; nothing was changed. Try again.", headers: ["retry-after": "1"]
    )

    /// 503: the store failed after retries while writing. A write whose answer was lost may
    /// have landed, so the body does not say "nothing was changed": what landed is kept
    /// whole (its tags and its event follow by the refresh run at the latest), and the same
    /// request sent again finishes it.
    package static let storeUnfinished = APIError(
        status: 503, code: "upstream_unavailable",
        message: "Storage failed while saving; anything already saved is kept and finished later. Try again.", headers: ["retry-after": "1"]
    )

    /// 503: Google refuses our own OAuth client; nothing was written. Our fault, never the user's.
    package static let clientUnavailable = APIError(
        status: 503, code: "upstream_unavailable", message: "Connecting Gmail is unavailable right now; nothing was changed. Try again later.",
        headers: ["retry-after": "60"]
    )

    /// 503: the identity provider's keys could not be fetched, so no token can be checked;
    /// nothing was read or written. Not a 401: the caller's sign-in is not at fault.
    package static let signInKeysUnavailable = APIError(
        status: 503, code: "upstream_unavailable", message: "Sign-in cannot be checked right now; nothing was changed. Try again.",
        headers: ["retry-after": "10"]
    )

    /// 503: the store failed while a security event was being acted on. Grants already
    /// changed stay changed (each whole), so the body does not say "nothing was changed";
    /// Google delivers the event again, which finishes it.
    package static let securityEventUnfinished = APIError(
        status: 503, code: "upstream_unavailable",
        message: "Storage failed while acting on the security event; what was done is kept. Deliver it again to finish.",
        headers: ["retry-after": "1"]
    )

    /// 503: another copy of the security event is being acted on: Google delivers it again,
    /// and a delivery after that copy recorded it is 202.
    package static let securityEventInFlight = APIError(
        status: 503, code: "upstream_unavailable",
        message: "Another delivery of this security event is being acted on. Deliver it again later.",
        headers: ["retry-after": "5"]
    )

    /// 503: a security event cannot be checked now (Google's keys or our client IDs out of
    /// reach): Google delivers it again.
    package static let securityEventKeysUnavailable = APIError(
        status: 503, code: "upstream_unavailable", message: "The security event cannot be verified right now; deliver it again.",
        headers: ["retry-after": "10"]
    )

    /// 500: our own fault; details go to the log only.
    package static let internalError = APIError(status: 500, code: "internal_error", message: "Something went wrong on our side.")
}

extension APIError {
    /// The answer to a store failure: unavailability is 503 (the caller may retry), told
    /// apart for a request that writes (``storeUnfinished``); a conflict that kept recurring
    /// is 409; anything else is our fault, 500.
    package init(storeError: StoreError, writing: Bool = false) {
        switch storeError {
        case .unavailable: self = writing ? .storeUnfinished : .upstreamUnavailable
        case .conflict: self = .conflict
        default: self = .internalError
        }
    }
}
