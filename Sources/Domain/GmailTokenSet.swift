#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseCoding

/// The token set, a grant's value (on Secrets Manager and the embedded file the value of
/// secret `gmail/user/{user_id}`, sealed in one item on DynamoDB): one JSON document (see
/// docs/design.md, "Grants and where they live"). Its `description` never shows a token.
package struct GmailTokenSet: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// Whether the grant can still be used.
    package enum Status: String, Sendable {
        /// Usable (or at least not known to be dead).
        case active
        /// Google answered `invalid_grant`: the user must consent again.
        case revoked
        /// Google refused the refresh token as issued to another OAuth client
        /// (`unauthorized_client` while our client is healthy): the user must connect again
        /// from our app.
        case rejected
        /// Google disabled the account (a Cross-Account Protection `account-disabled`
        /// event): not connected and not refreshed, the refresh token kept. Google's
        /// `account-enabled` marks it unverified: the next refresh run asks Google, and the
        /// set is active (connected) again once Google renews it.
        case disabled
    }

    /// The document format this code writes: 2 added `google_sub`, `email_verified`,
    /// `verified` and `verified_at`. Format 1 documents are read as verified sets without a
    /// known subject. `client_id`, `rt_digests` and `account_event_at` were added within format 2: they are
    /// optional; a reader that ignores `client_id` refreshes with the default client, as for
    /// sets stored before it, and one that ignores `rt_digests` writes a set without them.
    package static let currentFormat = 2

    /// The document format, so it can evolve.
    package var version: Int
    /// The short-lived OAuth access token.
    package var accessToken: String
    /// The long-lived refresh token; absent when the app sent none for this account.
    /// Changing it drops ``refreshTokenDigests``: they described the token replaced.
    package var refreshToken: String? {
        didSet {
            if refreshToken != oldValue { refreshTokenDigests = nil }
        }
    }
    /// The refresh token's identifiers under the deployment's key, as Google's
    /// `token-revoked` events name it; `nil` until the vault stamps them (``TokenVault``),
    /// with no key configured, and for sets stored before them.
    package var refreshTokenDigests: RefreshTokenDigests?
    /// Normally `Bearer`.
    package var tokenType: String
    /// When the access token expires.
    package var expiresAt: Date
    /// Granted scopes, space-joined.
    package var scope: String
    /// The Google account's address: from Google's `id_token` when the set was verified,
    /// else as the app said.
    package var googleEmail: String?
    /// The Google account's stable id (`sub` of Google's `id_token`); `nil` for sets stored
    /// before verification existed or never verified.
    package var googleSubject: String?
    /// Google's `email_verified` for ``googleEmail``, when Google said.
    package var emailVerified: Bool?
    /// The OAuth client Google renews the grant with (``GoogleClients``); `nil` for sets
    /// stored before grants recorded it, which belong to the default client, and for
    /// unverified sets whose app named none of ours.
    package var googleClientID: String?
    /// `false` while the refresh token is stored as the app sent it, unconfirmed (Google
    /// could not be reached at connect time): the next refresh run verifies it first.
    package var verified: Bool
    /// When Google last confirmed the grant (a verification or a refresh).
    package var verifiedAt: Date?
    /// When this Google account was first connected.
    package var connectedAt: Date
    /// When the set was last written.
    package var updatedAt: Date
    /// `active`, `revoked`, `rejected` or `disabled`.
    package var status: Status
    /// The `iat` of the latest `account-disabled` or `account-enabled` event applied to this
    /// Google account's grant: an account event issued before it changes nothing (Google's
    /// latest word on the account wins, whatever order its events arrive in). `nil` until one.
    package var accountEventAt: Date?
    /// The grant's lifecycle events not yet published, and its sequence (``LifecycleOutbox``);
    /// `nil` until a change is recorded (never, without an event bus). Added within format 2:
    /// a reader that ignores it writes the set without it, and its pending events are lost.
    package var lifecycle: LifecycleOutbox?

    /// Creates a token set.
    package init(
        version: Int = GmailTokenSet.currentFormat, accessToken: String, refreshToken: String?, tokenType: String = "Bearer",
        expiresAt: Date, scope: String, googleEmail: String?, googleSubject: String? = nil, emailVerified: Bool? = nil,
        googleClientID: String? = nil, verified: Bool = true, verifiedAt: Date? = nil, connectedAt: Date, updatedAt: Date, status: Status = .active,
        refreshTokenDigests: RefreshTokenDigests? = nil, accountEventAt: Date? = nil, lifecycle: LifecycleOutbox? = nil
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
        self.googleClientID = googleClientID
        self.verified = verified
        self.verifiedAt = verifiedAt
        self.connectedAt = connectedAt
        self.updatedAt = updatedAt
        self.status = status
        self.refreshTokenDigests = refreshTokenDigests
        self.accountEventAt = accountEventAt
        self.lifecycle = lifecycle
    }

    /// Whether the refresh job can renew it: holding a refresh token, and active, or not
    /// active but unverified (awaiting Google's word: a disabled account Google has since
    /// enabled, or a reconnect over a refused or disabled grant that Google could not check yet).
    package var isRefreshable: Bool { (status == .active || !verified) && !(refreshToken ?? "").isEmpty }

    /// The granted scopes as a list.
    package var scopes: [String] { scope.split(separator: " ").map(String.init) }

    package var description: String {
        "GmailTokenSet(status: \(status.rawValue), expiresAt: \(RFC3339.string(from: expiresAt)), refreshable: \(isRefreshable), verified: \(verified), tokens: <redacted>)"
    }

    package var debugDescription: String { description }
}

// The stored document: one encoder (`jsonValue`) and one decoder (`init(fields:)`), written
// by hand rather than derived by `Codable` (`JSONEncoder` and `JSONDecoder` were a fifth of
// a warm store-tokens call). Keys are sorted on output, so equal sets store equal bytes.
extension GmailTokenSet {
    /// The stored JSON text, always in the current format whatever format was read.
    /// - Throws: ``JSONTypeMismatch`` if the document cannot be written (it always can).
    package func jsonString() throws -> String {
        guard let bytes = jsonValue.compactJSON() else { throw JSONTypeMismatch(key: "") }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Reads a stored document, of this format or an earlier one.
    /// - Throws: ``JSONTypeMismatch`` (or the JSON parser's error) when it is not a token set,
    ///   or is one of a later format (``isNewerFormat(_:)``), whose members this release
    ///   cannot know and must not drop by writing the set back.
    package static func decode(_ text: String) throws -> GmailTokenSet {
        guard case .object(let fields) = try JSONValue.decode(Array(text.utf8)) else { throw JSONTypeMismatch(key: "") }
        return try GmailTokenSet(fields: fields)
    }

    /// Whether `text` is a document of a later format than this release writes.
    package static func isNewerFormat(_ text: String) -> Bool {
        guard case .object(let fields) = try? JSONValue.decode(Array(text.utf8)), let format = try? fields.integer("version") else { return false }
        return format > currentFormat
    }

    /// The document as a value.
    var jsonValue: JSONValue {
        var fields: [String: JSONValue] = [
            "version": .integer(Int64(Self.currentFormat)), "access_token": .string(accessToken), "token_type": .string(tokenType),
            "expires_at": .string(RFC3339.string(from: expiresAt)), "scope": .string(scope), "verified": .bool(verified),
            "connected_at": .string(RFC3339.string(from: connectedAt)), "updated_at": .string(RFC3339.string(from: updatedAt)),
            "status": .string(status.rawValue),
        ]
        if let refreshToken { fields["refresh_token"] = .string(refreshToken) }
        if let googleEmail { fields["google_email"] = .string(googleEmail) }
        if let googleSubject { fields["google_sub"] = .string(googleSubject) }
        if let emailVerified { fields["email_verified"] = .bool(emailVerified) }
        if let googleClientID { fields["client_id"] = .string(googleClientID) }
        if let verifiedAt { fields["verified_at"] = .string(RFC3339.string(from: verifiedAt)) }
        if let accountEventAt { fields["account_event_at"] = .string(RFC3339.string(from: accountEventAt)) }
        if let lifecycle { fields["lifecycle"] = lifecycle.jsonValue }
        if let refreshTokenDigests {
            fields["rt_digests"] = .object(["prefix": .string(refreshTokenDigests.prefix), "hash": .string(refreshTokenDigests.hash)])
        }
        return .object(fields)
    }

    /// Reads a document's members. Absent optional members take their defaults; a member of
    /// the wrong type, an unknown status or a date that is not RFC 3339 is refused.
    init(fields: [String: JSONValue]) throws(JSONTypeMismatch) {
        func date(_ key: String) throws(JSONTypeMismatch) -> Date {
            guard let text = try fields.string(key), let date = RFC3339.date(from: text) else { throw JSONTypeMismatch(key: key) }
            return date
        }
        let format = try fields.integer("version") ?? 1
        guard format <= Self.currentFormat else { throw JSONTypeMismatch(key: "version") }
        guard let accessToken = try fields.string("access_token") else { throw JSONTypeMismatch(key: "access_token") }
        let expiresAt = try date("expires_at")
        let connectedAt = (try? date("connected_at")) ?? expiresAt
        let status: Status
        if let raw = try fields.string("status") {
            guard let known = Status(rawValue: raw) else { throw JSONTypeMismatch(key: "status") }
            status = known
        } else {
            status = .active
        }
        var digests: RefreshTokenDigests?
        if let members = try fields.object("rt_digests") {
            guard let prefix = try members.string("prefix"), let hash = try members.string("hash") else { throw JSONTypeMismatch(key: "rt_digests") }
            digests = RefreshTokenDigests(prefix: prefix, hash: hash)
        }
        self.init(
            version: format, accessToken: accessToken, refreshToken: try fields.string("refresh_token"),
            tokenType: try fields.string("token_type") ?? "Bearer", expiresAt: expiresAt, scope: try fields.string("scope") ?? "",
            googleEmail: try fields.string("google_email"), googleSubject: try fields.string("google_sub"),
            emailVerified: try fields.bool("email_verified"), googleClientID: try fields.string("client_id"),
            // Format 1 had no verification: its sets count as verified (the refresh job
            // renews them on schedule, which records Google's identity).
            verified: try fields.bool("verified") ?? true, verifiedAt: try fields.string("verified_at").flatMap(RFC3339.date(from:)),
            connectedAt: connectedAt, updatedAt: (try? date("updated_at")) ?? connectedAt, status: status, refreshTokenDigests: digests,
            accountEventAt: try fields.string("account_event_at").flatMap(RFC3339.date(from:)),
            lifecycle: try fields.object("lifecycle").map { members throws(JSONTypeMismatch) in try LifecycleOutbox(fields: members) }
        )
    }
}
