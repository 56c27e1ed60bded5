/// One of the fake's two endpoints.
package enum FakeGoogleEndpoint: String, Sendable, Hashable {
    /// `POST /token`.
    case token
    /// `POST /revoke`.
    case revoke
}

/// A scripted misbehaviour of the next call to an endpoint of ``FakeGoogleServer``.
package enum FakeGoogleFault: Sendable, Equatable {
    /// Answer as Google would (lets a later fault in the queue hit a later call).
    case pass
    /// Answer this status with a Google-style JSON error (`rate_limit_exceeded` for 429,
    /// `internal_failure` for 5xx), with `Retry-After: <seconds>` when given.
    case status(Int, retryAfter: Int? = nil)
    /// Answer exactly this, e.g. a malformed 200 or an HTML error page.
    case response(status: Int, headers: [String: String] = [:], body: String)
    /// Read the request and never answer (until the server stops): the client times out.
    case stall
    /// Close the connection without answering: the client sees a reset.
    ///
    /// libcurl silently retries once when a *reused* connection dies before any byte of an
    /// answer, so script a reset on a client's first call when counting calls exactly.
    case reset
    /// Announce a 200 with a longer body than is sent, then close: a truncated answer.
    case truncate
}
