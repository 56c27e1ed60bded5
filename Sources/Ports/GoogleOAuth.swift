/// Google's OAuth endpoints as the domain needs them: refresh a grant, revoke a grant.
/// The app is a public iOS client: no client secret is ever sent.
package protocol GoogleOAuth: Sendable {
    /// Exchanges a refresh token for a new access token (`grant_type=refresh_token`).
    /// Implementations retry transient failures a bounded number of times first.
    /// - Throws: ``GoogleOAuthError``.
    func refresh(refreshToken: String, clientID: String) async throws -> GoogleRefreshAnswer

    /// Revokes a grant by its refresh or access token (revoking either revokes both).
    /// - Throws: ``GoogleOAuthError``.
    func revoke(token: String) async throws
}

/// A successful refresh answer.
package struct GoogleRefreshAnswer: Sendable, Equatable {
    /// The new access token.
    package var accessToken: String
    /// Its lifetime in seconds (Google says 3599).
    package var expiresIn: Int
    /// The granted scopes, space-joined, when Google says.
    package var scope: String?
    /// Normally `Bearer`.
    package var tokenType: String
    /// A new refresh token, rarely sent; when absent the stored one stays valid.
    package var refreshToken: String?
    /// The Google account, from the answer's `id_token` (present when the grant includes
    /// `openid`, which Google Sign-In always asks for).
    package var identity: GoogleIdentity?

    /// Creates an answer.
    package init(
        accessToken: String, expiresIn: Int, scope: String?, tokenType: String = "Bearer", refreshToken: String? = nil,
        identity: GoogleIdentity? = nil
    ) {
        self.accessToken = accessToken
        self.expiresIn = expiresIn
        self.scope = scope
        self.tokenType = tokenType
        self.refreshToken = refreshToken
        self.identity = identity
    }
}

/// The claims of an `id_token` received straight from Google's token endpoint over a
/// connection we opened: trusted without a signature check (OpenID Connect Core 3.1.3.7),
/// though its audience must still name our client.
package struct GoogleIdentity: Sendable, Equatable {
    /// `sub`: the Google account's stable id; an address can change, this cannot.
    package var subject: String
    /// `email`, if the grant includes the email scope.
    package var email: String?
    /// `email_verified`.
    package var emailVerified: Bool?
    /// `aud`: the client IDs the token is meant for.
    package var audience: [String]

    /// Creates an identity.
    package init(subject: String, email: String?, emailVerified: Bool?, audience: [String]) {
        self.subject = subject
        self.email = email
        self.emailVerified = emailVerified
        self.audience = audience
    }

    /// Whether the token was issued for `clientID`.
    package func isIssued(to clientID: String) -> Bool { audience.contains(clientID) }
}

/// Why a Google call failed, classified by what the caller must do about it.
package struct GoogleOAuthError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What the caller must do.
    package enum Kind: String, Sendable, Equatable {
        /// `invalid_grant`: this grant is dead for good (revoked, expired, password change,
        /// testing-mode expiry, token limit). Mark it revoked; keep the refresh token.
        case invalidGrant = "invalid_grant"
        /// `unauthorized_client` / `invalid_client`: Google refused the client for this
        /// request. Either the grant was issued to another OAuth client (a fault of this
        /// grant only) or our client ID is wrong (ours): only a probe tells which.
        case clientRefused = "client_refused"
        /// `deleted_client`, or a failure that will not heal by itself (a bad endpoint URL,
        /// TLS): our own client or configuration is broken. Stop and alert.
        case clientBroken = "client_broken"
        /// 429, 5xx, timeouts, connection errors: try again on a later run; change nothing.
        case transient
        /// Revoke of a token Google does not know (`invalid_token`): nothing left to revoke.
        case invalidToken = "invalid_token"
        /// Any other refusal (e.g. `invalid_request`): a bug on our side; change nothing.
        case rejected
    }

    /// The classification.
    package let kind: Kind
    /// Google's `error` code or the transport failure, e.g. `invalid_grant`, `http_503`,
    /// `timeout`; never contains a token.
    package let code: String
    /// Google's `error_description`, if any (Google does not echo tokens there).
    package let detail: String

    /// Creates an error.
    package init(kind: Kind, code: String, detail: String = "") {
        self.kind = kind
        self.code = code
        self.detail = detail
    }

    package var description: String { detail.isEmpty ? "\(kind.rawValue) (\(code))" : "\(kind.rawValue) (\(code)): \(detail)" }
}
