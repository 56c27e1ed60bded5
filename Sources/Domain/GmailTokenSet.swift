#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The token set stored as secret `gmail/user/{user_id}`: one JSON document (see the
/// storage contract in DESIGN.md). Its `description` never shows a token.
public struct GmailTokenSet: Sendable, Equatable, Codable, CustomStringConvertible, CustomDebugStringConvertible {
    /// Whether the grant can still be used.
    public enum Status: String, Sendable, Codable {
        /// Usable (or at least not known to be dead).
        case active
        /// Google answered `invalid_grant`: the user must consent again.
        case revoked
        /// Google refused the refresh token as issued to another OAuth client
        /// (`unauthorized_client` while our client is healthy): the user must connect again
        /// from our app.
        case rejected
    }

    /// The document format this code writes: 2 added `google_sub`, `email_verified`,
    /// `verified` and `verified_at`. Format 1 documents are read as verified sets without a
    /// known subject.
    public static let currentFormat = 2

    /// The document format, so it can evolve.
    public var version: Int
    /// The short-lived OAuth access token.
    public var accessToken: String
    /// The long-lived refresh token; absent when the app sent none for this account.
    public var refreshToken: String?
    /// Normally `Bearer`.
    public var tokenType: String
    /// When the access token expires.
    public var expiresAt: Date
    /// Granted scopes, space-joined.
    public var scope: String
    /// The Google account's address: from Google's `id_token` when the set was verified,
    /// else as the app said.
    public var googleEmail: String?
    /// The Google account's stable id (`sub` of Google's `id_token`); `nil` for sets stored
    /// before verification existed or never verified.
    public var googleSubject: String?
    /// Google's `email_verified` for ``googleEmail``, when Google said.
    public var emailVerified: Bool?
    /// `false` while the refresh token is stored as the app sent it, unconfirmed (Google
    /// could not be reached at connect time): the next refresh run verifies it first.
    public var verified: Bool
    /// When Google last confirmed the grant (a verification or a refresh).
    public var verifiedAt: Date?
    /// When this Google account was first connected.
    public var connectedAt: Date
    /// When the set was last written.
    public var updatedAt: Date
    /// `active`, `revoked` or `rejected`.
    public var status: Status

    /// Creates a token set.
    public init(
        version: Int = GmailTokenSet.currentFormat, accessToken: String, refreshToken: String?, tokenType: String = "Bearer",
        expiresAt: Date, scope: String, googleEmail: String?, googleSubject: String? = nil, emailVerified: Bool? = nil,
        verified: Bool = true, verifiedAt: Date? = nil, connectedAt: Date, updatedAt: Date, status: Status = .active
    ) {
        self.version = version
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.tokenType = tokenType
        self.expiresAt = expiresAt
        self.scope = scope
        self.googleEmail = googleEmail
        self.googleSubject = googleSubject
        self.emailVerified = emailVerified
        self.verified = verified
        self.verifiedAt = verifiedAt
        self.connectedAt = connectedAt
        self.updatedAt = updatedAt
        self.status = status
    }

    /// Whether the refresh job can renew it: active and holding a refresh token.
    public var isRefreshable: Bool { status == .active && !(refreshToken ?? "").isEmpty }

    /// The granted scopes as a list.
    public var scopes: [String] { scope.split(separator: " ").map(String.init) }

    public var description: String {
        "GmailTokenSet(status: \(status.rawValue), expiresAt: \(RFC3339.string(from: expiresAt)), refreshable: \(isRefreshable), verified: \(verified), tokens: <redacted>)"
    }

    public var debugDescription: String { description }
}
