#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The claims of a PayPulse access token, decoded after the signature check.
///
/// Decoding is strict for the registered claims: `iss` must be a string, `aud` a string or
/// an array of strings, and `exp`, `nbf`, `iat` NumericDates: any JSON number of seconds
/// since 1970, a fraction included (RFC 7519 §2; several identity providers emit one);
/// a string, a boolean or anything else fails the token. `name` / `email` are lenient (kept only if strings). `sub` is decoded by hand
/// so a missing and a non-string `sub` give distinct reasons.
struct AccessTokenClaims: Codable, Sendable {
    /// What the token says about `sub`.
    enum Subject: Sendable, Equatable {
        case missing
        case notString
        case value(String)
    }

    var subject: Subject
    var issuer: String?
    var audience: [String]?
    var expiration: Date?
    var notBefore: Date?
    var issuedAt: Date?
    var name: String?
    var email: String?

    private enum CodingKeys: String, CodingKey {
        case subject = "sub", issuer = "iss", audience = "aud", expiration = "exp"
        case notBefore = "nbf", issuedAt = "iat", name, email
    }

    init(
        subject: String, issuer: String, audience: String, issuedAt: Date, expiresAt: Date,
        name: String? = nil, email: String? = nil
    ) {
        self.subject = .value(subject)
        self.issuer = issuer
        self.audience = [audience]
        self.issuedAt = issuedAt
        self.expiration = expiresAt
        self.name = name
        self.email = email
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let subject = try? container.decodeIfPresent(String.self, forKey: .subject) {
            self.subject = .value(subject)
        } else if container.contains(.subject), try !container.decodeNil(forKey: .subject) {
            self.subject = .notString
        } else {
            self.subject = .missing
        }
        issuer = try container.decodeIfPresent(String.self, forKey: .issuer)
        audience = try Self.decodeAudience(container)
        expiration = try Self.decodeNumericDate(container, .expiration)
        notBefore = try Self.decodeNumericDate(container, .notBefore)
        issuedAt = try Self.decodeNumericDate(container, .issuedAt)
        name = try? container.decodeIfPresent(String.self, forKey: .name)
        email = try? container.decodeIfPresent(String.self, forKey: .email)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if case .value(let subject) = subject {
            try container.encode(subject, forKey: .subject)
        }
        try container.encodeIfPresent(issuer, forKey: .issuer)
        // One audience is written as a plain string, as RFC 7519 §4.1.3 allows.
        if let audience {
            if audience.count == 1 { try container.encode(audience[0], forKey: .audience) } else { try container.encode(audience, forKey: .audience) }
        }
        for (key, date) in [(CodingKeys.issuedAt, issuedAt), (.notBefore, notBefore), (.expiration, expiration)] {
            if let date { try container.encode(Int64(date.timeIntervalSince1970.rounded(.down)), forKey: key) }
        }
        try container.encodeIfPresent(name, forKey: .name)
        try container.encodeIfPresent(email, forKey: .email)
    }

    /// `aud`: one string or an array of strings.
    private static func decodeAudience(_ container: KeyedDecodingContainer<CodingKeys>) throws -> [String]? {
        if let single = try? container.decodeIfPresent(String.self, forKey: .audience) { return [single] }
        return try container.decodeIfPresent([String].self, forKey: .audience)
    }

    /// A NumericDate: a JSON number of seconds since 1970, whole or not. JSON has no NaN or
    /// infinity, so every decoded value compares as a number.
    private static func decodeNumericDate(_ container: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> Date? {
        try container.decodeIfPresent(Double.self, forKey: key).map { Date(timeIntervalSince1970: $0) }
    }
}
