#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseCoding

// The stored document written and read by hand, member for member as `encode(to:)` and
// `init(from:)` do: `JSONEncoder` and `JSONDecoder` were a fifth of a warm store-tokens call.
extension GmailTokenSet {
    /// The document `encode(to:)` writes, as a value.
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
        if let verifiedAt { fields["verified_at"] = .string(RFC3339.string(from: verifiedAt)) }
        return .object(fields)
    }

    /// Reads a document under the rules of `init(from:)`.
    /// - Throws: ``JSONTypeMismatch`` where `init(from:)` throws a `DecodingError`.
    init(fields: [String: JSONValue]) throws(JSONTypeMismatch) {
        func date(_ key: String) throws(JSONTypeMismatch) -> Date {
            guard let text = try fields.string(key), let date = RFC3339.date(from: text) else { throw JSONTypeMismatch(key: key) }
            return date
        }
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
        self.init(
            version: try fields.integer("version") ?? 1, accessToken: accessToken, refreshToken: try fields.string("refresh_token"),
            tokenType: try fields.string("token_type") ?? "Bearer", expiresAt: expiresAt, scope: try fields.string("scope") ?? "",
            googleEmail: try fields.string("google_email"), googleSubject: try fields.string("google_sub"),
            emailVerified: try fields.bool("email_verified"),
            // Format 1 had no verification: its sets count as verified.
            verified: try fields.bool("verified") ?? true, verifiedAt: try fields.string("verified_at").flatMap(RFC3339.date(from:)),
            connectedAt: connectedAt, updatedAt: (try? date("updated_at")) ?? connectedAt, status: status
        )
    }
}
