/// A token set as the app posts it to store-tokens, already validated.
public struct IncomingTokens: Sendable, Equatable {
    /// The access token (required).
    public var accessToken: String
    /// The refresh token, present on first authorization.
    public var refreshToken: String?
    /// Lifetime in seconds, 1...86 400 (default 3600).
    public var expiresIn: Int
    /// Granted scopes, when the app sent them.
    public var scopes: [String]?
    /// The Google account's address, when the app sent it.
    public var email: String?
    /// The token type (default `Bearer`).
    public var tokenType: String

    /// Creates validated input.
    public init(accessToken: String, refreshToken: String? = nil, expiresIn: Int = 3600, scopes: [String]? = nil, email: String? = nil, tokenType: String = "Bearer") {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
        self.scopes = scopes
        self.email = email
        self.tokenType = tokenType
    }
}

/// The scopes this backend cares about.
public enum GmailScopes {
    /// The scope the app must hold for PayPulse to read Gmail.
    public static let readonly = "https://www.googleapis.com/auth/gmail.readonly"
}
