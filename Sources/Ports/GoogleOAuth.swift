/// Google's OAuth endpoints as the domain needs them: refresh a grant, revoke a grant.
/// The app is a public iOS client: no client secret is ever sent.
public protocol GoogleOAuth: Sendable {
    /// Exchanges a refresh token for a new access token (`grant_type=refresh_token`).
    /// Implementations retry transient failures a bounded number of times first.
    /// - Throws: ``GoogleOAuthError``.
    func refresh(refreshToken: String, clientID: String) async throws -> GoogleTokenGrant

    /// Revokes a grant by its refresh or access token (revoking either revokes both).
    /// - Throws: ``GoogleOAuthError``.
    func revoke(token: String) async throws
}

/// A successful refresh answer.
public struct GoogleTokenGrant: Sendable, Equatable {
    /// The new access token.
    public var accessToken: String
    /// Its lifetime in seconds (Google says 3599).
    public var expiresIn: Int
    /// The granted scopes, space-joined, when Google says.
    public var scope: String?
    /// Normally `Bearer`.
    public var tokenType: String
    /// A new refresh token, rarely sent; when absent the stored one stays valid.
    public var refreshToken: String?

    /// Creates a grant.
    public init(accessToken: String, expiresIn: Int, scope: String?, tokenType: String = "Bearer", refreshToken: String? = nil) {
        self.accessToken = accessToken
        self.expiresIn = expiresIn
        self.scope = scope
        self.tokenType = tokenType
        self.refreshToken = refreshToken
    }
}

/// Why a Google call failed, classified by what the caller must do about it.
public struct GoogleOAuthError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What the caller must do.
    public enum Kind: String, Sendable, Equatable {
        /// `invalid_grant`: this grant is dead for good (revoked, expired, password change,
        /// testing-mode expiry, token limit). Mark it revoked; keep the refresh token.
        case invalidGrant = "invalid_grant"
        /// `invalid_client` / `unauthorized_client`: our configuration is wrong. Stop the run.
        case configuration
        /// 429, 5xx, timeouts, connection errors: try again on a later run; change nothing.
        case transient
        /// Revoke of a token Google does not know (`invalid_token`): nothing left to revoke.
        case invalidToken = "invalid_token"
        /// Any other refusal (e.g. `invalid_request`): a bug on our side; change nothing.
        case rejected
    }

    /// The classification.
    public let kind: Kind
    /// Google's `error` code or the transport failure, e.g. `invalid_grant`, `http_503`,
    /// `timeout`; never contains a token.
    public let code: String
    /// Google's `error_description`, if any (Google does not echo tokens there).
    public let detail: String

    /// Creates an error.
    public init(kind: Kind, code: String, detail: String = "") {
        self.kind = kind
        self.code = code
        self.detail = detail
    }

    public var description: String { detail.isEmpty ? "\(kind.rawValue) (\(code))" : "\(kind.rawValue) (\(code)): \(detail)" }
}
