#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A token set to store for the app's connect request, already validated; after
/// verification its fields are Google's answer, otherwise what the app sent.
package struct IncomingTokens: Sendable, Equatable {
    /// The access token (required).
    package var accessToken: String
    /// The refresh token, present on first authorization.
    package var refreshToken: String?
    /// Lifetime in seconds, 1...86 400 (default 3600).
    package var expiresIn: Int
    /// Granted scopes, when known.
    package var scopes: [String]?
    /// The Google account's address, when known.
    package var email: String?
    /// The token type (default `Bearer`).
    package var tokenType: String
    /// The Google account's `sub`, known only from Google's `id_token`.
    package var subject: String?
    /// Google's `email_verified`, when Google said.
    package var emailVerified: Bool?
    /// The OAuth client that holds the grant: Google's word once verified; before, the
    /// app's `client_id` (a hint that orders the trial of our clients).
    package var clientID: String?
    /// Whether Google confirmed ``refreshToken`` (always `true` when none is sent).
    package var verified: Bool
    /// When Google answered the proof of ``refreshToken`` (our clock on its answer), the
    /// grant's `verified_at` whenever the write lands; `nil` when Google did not prove it.
    package var provedAt: Date?

    /// Creates validated input.
    package init(
        accessToken: String, refreshToken: String? = nil, expiresIn: Int = 3600, scopes: [String]? = nil, email: String? = nil,
        tokenType: String = "Bearer", subject: String? = nil, emailVerified: Bool? = nil, clientID: String? = nil,
        verified: Bool = true, provedAt: Date? = nil
    ) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
        self.scopes = scopes
        self.email = email
        self.tokenType = tokenType
        self.subject = subject
        self.emailVerified = emailVerified
        self.clientID = clientID
        self.verified = verified
        self.provedAt = provedAt
    }
}

/// The scopes this backend cares about.
package enum GmailScopes {
    /// The narrowest scope that lets PayPulse read Gmail: the one the app asks for.
    package static let readonly = "https://www.googleapis.com/auth/gmail.readonly"
    /// Every scope that includes reading mail (`gmail.modify` and full access read too).
    package static let reading: Set<String> = [
        readonly, "https://www.googleapis.com/auth/gmail.modify", "https://mail.google.com/",
    ]

    /// Whether `scopes` let PayPulse read Gmail.
    package static func canRead(_ scopes: [String]) -> Bool { scopes.contains(where: reading.contains) }
}
