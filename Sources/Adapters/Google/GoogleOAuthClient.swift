import Logging
import PayPulsePorts
import PayPulseTransport

/// ``GoogleOAuth`` over HTTP: Google's token endpoint (refresh) and revoke endpoint.
///
/// The app is a public iOS client, so a refresh sends the client ID and never a client
/// secret. Transient failures are retried under `RetryPolicy.google`; every other answer
/// is classified once into ``GoogleOAuthError``. Tokens never reach a log line or an error.
public struct GoogleOAuthClient: GoogleOAuth {
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
    public init(
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
    public func refresh(refreshToken: String, clientID: String) async throws -> GoogleTokenGrant {
        let form = GoogleForm([("client_id", clientID), ("grant_type", "refresh_token"), ("refresh_token", refreshToken)])
        let response = try await exchange(.token, url: tokenEndpoint, form: form, secrets: [refreshToken])
        return try GoogleTokenAnswer.grant(from: response.body)
    }

    /// `POST token=…` to the revoke endpoint; 200 means the grant is gone.
    /// - Throws: ``GoogleOAuthError``; `.invalidToken` when Google does not know the token.
    public func revoke(token: String) async throws {
        _ = try await exchange(.revoke, url: revokeEndpoint, form: GoogleForm([("token", token)]), secrets: [token])
    }
}
