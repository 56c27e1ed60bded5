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
    }

    /// The document format this code writes.
    public static let currentFormat = 1

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
    /// The Google account the tokens belong to, when the app said.
    public var googleEmail: String?
    /// When this Google account was first connected.
    public var connectedAt: Date
    /// When the set was last written.
    public var updatedAt: Date
    /// `active` or `revoked`.
    public var status: Status

    /// Creates a token set.
    public init(
        version: Int = GmailTokenSet.currentFormat, accessToken: String, refreshToken: String?, tokenType: String = "Bearer",
        expiresAt: Date, scope: String, googleEmail: String?, connectedAt: Date, updatedAt: Date, status: Status = .active
    ) {
        self.version = version
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.tokenType = tokenType
        self.expiresAt = expiresAt
        self.scope = scope
        self.googleEmail = googleEmail
        self.connectedAt = connectedAt
        self.updatedAt = updatedAt
        self.status = status
    }

    /// Whether the refresh job can renew it: active and holding a refresh token.
    public var isRefreshable: Bool { status == .active && !(refreshToken ?? "").isEmpty }

    /// The granted scopes as a list.
    public var scopes: [String] { scope.split(separator: " ").map(String.init) }

    public var description: String {
        "GmailTokenSet(status: \(status.rawValue), expiresAt: \(RFC3339.string(from: expiresAt)), refreshable: \(isRefreshable), tokens: <redacted>)"
    }

    public var debugDescription: String { description }
}
