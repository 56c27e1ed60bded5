#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseCoding

/// The claims of a PayPulse access token, decoded after the signature check.
///
/// Decoding is strict for the registered claims: `iss` must be a string, `aud` a string or
/// an array of strings, and `exp`, `nbf`, `iat` NumericDates: any JSON number of seconds
/// since 1970, a fraction included (RFC 7519 §2; several identity providers emit one);
/// a string, a boolean or anything else fails the token. `name` / `email` are lenient (kept only if strings). A missing
/// and a non-string `sub` give distinct reasons.
///
/// One encoder (`encode(to:)`, for the development minter) and one decoder
/// (``decode(_:)``, by hand over the parsed payload: `JSONDecoder` cost more than the rest
/// of a request's verification).
struct AccessTokenClaims: Encodable, Sendable {
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
}

extension AccessTokenClaims {
    /// The claims of a verified payload, or `nil` when it is not a claims object or a
    /// registered claim has the wrong type.
    static func decode(_ payload: [UInt8]) -> AccessTokenClaims? {
        guard case .object(let fields)? = try? JSONValue.decode(payload) else { return nil }
        return try? AccessTokenClaims(fields: fields)
    }

    private init(fields: [String: JSONValue]) throws(JSONTypeMismatch) {
        switch fields["sub"] {
        case .string(let value)?: subject = .value(value)
        case nil, .null?: subject = .missing
        default: subject = .notString
        }
        issuer = try fields.string("iss")
        // `aud`: one string or an array of strings.
        if case .string(let single)? = fields["aud"] { audience = [single] } else { audience = try fields.strings("aud") }
        // NumericDates: any JSON number of seconds, whole or not (JSON has no NaN or infinity).
        expiration = try fields.double("exp").map(Date.init(timeIntervalSince1970:))
        notBefore = try fields.double("nbf").map(Date.init(timeIntervalSince1970:))
        issuedAt = try fields.double("iat").map(Date.init(timeIntervalSince1970:))
        name = try? fields.string("name")
        email = try? fields.string("email")
    }
}
