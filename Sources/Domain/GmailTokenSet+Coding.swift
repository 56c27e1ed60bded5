#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseCoding

extension GmailTokenSet {
    enum CodingKeys: String, CodingKey {
        case version, scope, status
        case accessToken = "access_token"
        case refreshToken = "refresh_token"
        case tokenType = "token_type"
        case expiresAt = "expires_at"
        case googleEmail = "google_email"
        case googleSubject = "google_sub"
        case emailVerified = "email_verified"
        case verified
        case verifiedAt = "verified_at"
        case connectedAt = "connected_at"
        case updatedAt = "updated_at"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func date(_ key: CodingKeys) throws -> Date {
            let text = try container.decode(String.self, forKey: key)
            guard let date = RFC3339.date(from: text) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "not an RFC 3339 time")
            }
            return date
        }
        version = try container.decodeIfPresent(Int.self, forKey: .version) ?? 1
        accessToken = try container.decode(String.self, forKey: .accessToken)
        refreshToken = try container.decodeIfPresent(String.self, forKey: .refreshToken)
        tokenType = try container.decodeIfPresent(String.self, forKey: .tokenType) ?? "Bearer"
        expiresAt = try date(.expiresAt)
        scope = try container.decodeIfPresent(String.self, forKey: .scope) ?? ""
        googleEmail = try container.decodeIfPresent(String.self, forKey: .googleEmail)
        googleSubject = try container.decodeIfPresent(String.self, forKey: .googleSubject)
        emailVerified = try container.decodeIfPresent(Bool.self, forKey: .emailVerified)
        // Format 1 had no verification: its sets count as verified (the refresh job renews
        // them on schedule, which records Google's identity).
        verified = try container.decodeIfPresent(Bool.self, forKey: .verified) ?? true
        verifiedAt = try container.decodeIfPresent(String.self, forKey: .verifiedAt).flatMap(RFC3339.date(from:))
        connectedAt = (try? date(.connectedAt)) ?? expiresAt
        updatedAt = (try? date(.updatedAt)) ?? connectedAt
        status = try container.decodeIfPresent(Status.self, forKey: .status) ?? .active
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        // What is written is always the current format, whatever format was read.
        try container.encode(Self.currentFormat, forKey: .version)
        try container.encode(accessToken, forKey: .accessToken)
        try container.encodeIfPresent(refreshToken, forKey: .refreshToken)
        try container.encode(tokenType, forKey: .tokenType)
        try container.encode(RFC3339.string(from: expiresAt), forKey: .expiresAt)
        try container.encode(scope, forKey: .scope)
        try container.encodeIfPresent(googleEmail, forKey: .googleEmail)
        try container.encodeIfPresent(googleSubject, forKey: .googleSubject)
        try container.encodeIfPresent(emailVerified, forKey: .emailVerified)
        try container.encode(verified, forKey: .verified)
        try container.encodeIfPresent(verifiedAt.map(RFC3339.string(from:)), forKey: .verifiedAt)
        try container.encode(RFC3339.string(from: connectedAt), forKey: .connectedAt)
        try container.encode(RFC3339.string(from: updatedAt), forKey: .updatedAt)
        try container.encode(status, forKey: .status)
    }

    /// The stored JSON text (keys sorted, so equal sets store equal bytes).
    public func jsonString() throws -> String {
        if let bytes = jsonValue.compactJSON() { return String(decoding: bytes, as: UTF8.self) }
        return try JSONCoding.string(self)
    }

    /// Reads a stored document.
    /// - Throws: `DecodingError` or `JSONTypeMismatch` when it is not a token set.
    public static func decode(_ text: String) throws -> GmailTokenSet {
        let bytes = Array(text.utf8)
        guard let value = JSONValue.fastParse(bytes) else { return try JSONDecoder().decode(GmailTokenSet.self, from: Data(bytes)) }
        guard case .object(let fields) = value else { throw JSONTypeMismatch(key: "") }
        return try GmailTokenSet(fields: fields)
    }
}
