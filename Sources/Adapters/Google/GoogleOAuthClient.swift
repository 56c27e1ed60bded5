import Logging
import PayPulsePorts
import PayPulseTransport

/// ``GoogleOAuth`` over HTTP: Google's token endpoint (refresh) and revoke endpoint.
///
/// The app is a public iOS client, so a refresh sends the client ID and never a client
/// secret. Transient failures are retried under `RetryPolicy.google`; every other answer
/// is classified once into ``GoogleOAuthError``. Tokens never reach a log line or an error.
package struct GoogleOAuthClient: GoogleOAuth {
    private let tokenEndpoint: String
    private let revokeEndpoint: String
    let transport: any HTTPTransport
    let retry: RetryPolicy
    let logger: Logger

    /// Creates a client.
    /// - Parameters:
    ///   - tokenEndpoint: where refreshes go; a local fake in tests.
    ///   - revokeEndpoint: where revocations go.
    ///   - transport: the HTTP client.
    ///   - retry: attempts, backoff and per-attempt timeout.
    ///   - logger: receives endpoint, status, attempt and duration; never a token.
    package init(
        tokenEndpoint: String = "https://oauth2.googleapis.com/token",
        revokeEndpoint: String = "https://oauth2.googleapis.com/revoke",
        transport: any HTTPTransport,
        retry: RetryPolicy = .google,
        logger: Logger
    ) {
        self.tokenEndpoint = tokenEndpoint
        self.revokeEndpoint = revokeEndpoint
        self.transport = transport
        self.retry = retry
        self.logger = logger
    }

    /// `POST client_id, grant_type=refresh_token, refresh_token` (no client secret).
    /// - Throws: ``GoogleOAuthError``; `.rejected` / `malformed_response` for a 200 without
    ///   an access token or a positive `expires_in`.
    package func refresh(refreshToken: String, clientID: String) async throws -> GoogleRefreshAnswer {
        let form = GoogleForm([("client_id", clientID), ("grant_type", "refresh_token"), ("refresh_token", refreshToken)])
        let response = try await exchange(.token, url: tokenEndpoint, form: form, secrets: [refreshToken])
        return try GoogleTokenAnswer.answer(from: response.body)
    }

    /// `POST token=…` to the revoke endpoint; 200 means the grant is gone.
    /// - Throws: ``GoogleOAuthError``; `.invalidToken` when Google does not know the token.
    package func revoke(token: String) async throws {
        _ = try await exchange(.revoke, url: revokeEndpoint, form: GoogleForm([("token", token)]), secrets: [token])
    }
}

extension GoogleOAuthClient {
    /// Posts `form` until a 2xx arrives, a failure is not worth retrying, or the policy's
    /// attempts or time run out.
    /// - Parameter secrets: values that must not appear in a thrown error (Google does not
    ///   echo tokens, but an error detail is scrubbed anyway before it leaves).
    /// - Throws: ``GoogleOAuthError``.
    func exchange(_ endpoint: GoogleEndpoint, url: String, form: GoogleForm, secrets: [String]) async throws -> HTTPResponse {
        let request = HTTPRequest(
            method: "POST", url: url,
            headers: ["Content-Type": GoogleForm.contentType, "Accept": "application/json"],
            body: form.bytes, timeout: retry.attemptTimeout,
            // A revoke resent by libcurl behind our back would hear `invalid_token` for a
            // revoke that worked; on a fresh connection the loss is ours to see (below).
            freshConnection: endpoint == .revoke
        )
        let started = ContinuousClock.now
        var attemptStarted = started
        // Whether an earlier attempt may have been carried out unheard (the connection
        // broke after sending, a timeout, a 5xx).
        var earlierAttemptMayHaveLanded = false
        do {
            return try await retry.run { number -> AttemptResult<HTTPResponse, GoogleOAuthError> in
                attemptStarted = ContinuousClock.now
                let failure: GoogleFailure
                do {
                    let response = try await transport.execute(request)
                    logger.debug("google call", metadata: metadata(endpoint, number, since: attemptStarted, ["status": "\(response.status)"]))
                    if (200..<300).contains(response.status) { return .success(response) }
                    failure = GoogleFailure(response: response, endpoint: endpoint)
                    // A retried revoke told the token is unknown: the earlier attempt revoked it.
                    if endpoint == .revoke, earlierAttemptMayHaveLanded, failure.error.kind == .invalidToken { return .success(response) }
                    if response.status >= 500 { earlierAttemptMayHaveLanded = true }
                } catch let error as TransportError {
                    failure = GoogleFailure(transport: error)
                    if error.requestMayHaveBeenSent { earlierAttemptMayHaveLanded = true }
                } catch {
                    failure = GoogleFailure(other: error)
                }
                return .failure(failure.error.redacting(secrets), retryable: failure.retryable, retryAfter: failure.retryAfter)
            } willRetry: { number, error, delay in
                logger.warning(
                    "google call retrying",
                    metadata: metadata(endpoint, number, since: attemptStarted, ["error": "\(error.code)", "delay_ms": "\(delay.wholeMilliseconds)"])
                )
            }
        } catch {
            if error.cancelled { throw GoogleOAuthError(kind: .transient, code: "cancelled", detail: "cancelled while waiting to retry") }
            let failure = error.failure
            logger.debug(
                "google call failed",
                metadata: metadata(endpoint, error.attempts, since: started, ["error": "\(failure.kind.rawValue) \(failure.code)", "detail": "\(failure.detail)"])
            )
            throw failure
        }
    }

    private func metadata(
        _ endpoint: GoogleEndpoint, _ attempt: Int, since start: ContinuousClock.Instant, _ extra: Logger.Metadata
    ) -> Logger.Metadata {
        var metadata: Logger.Metadata = [
            "endpoint": "\(endpoint.rawValue)", "attempt": "\(attempt)",
            "duration_ms": "\((ContinuousClock.now - start).wholeMilliseconds)",
        ]
        metadata.merge(extra) { _, new in new }
        return metadata
    }
}

extension GoogleOAuthError {
    /// The same error with every occurrence of `secrets` in its code and detail replaced.
    func redacting(_ secrets: [String]) -> GoogleOAuthError {
        var code = self.code
        var detail = self.detail
        for secret in secrets where !secret.isEmpty {
            code = code.replacing(secret, with: "[redacted]")
            detail = detail.replacing(secret, with: "[redacted]")
        }
        return GoogleOAuthError(kind: kind, code: code, detail: detail)
    }
}
