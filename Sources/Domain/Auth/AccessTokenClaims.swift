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

extension AccessTokenClaims {
    /// Checks the registered claims and returns the user.
    ///
    /// `now` is taken in whole seconds and compared with the claims as numbers (a claim may
    /// carry a fraction): the token is accepted while `now - leeway < exp` and
    /// `nbf <= now + leeway`. `exp` is
    /// required: a token that never expires is refused.
    /// - Parameters:
    ///   - issuer: The required `iss`.
    ///   - audience: The value `aud` must contain.
    ///   - now: The current time.
    ///   - leeway: Clock-skew leeway in seconds, already clamped to 0...60.
    /// - Throws: ``AuthenticationError`` naming the first claim that fails.
    func check(issuer: String, audience: String, now: Date, leeway: Int) throws(AuthenticationError) -> AuthenticatedUser {
        guard self.issuer == issuer else { throw .wrongIssuer }
        guard self.audience?.contains(audience) == true else { throw .wrongAudience }

        let nowSeconds = Self.wholeSeconds(now)
        guard let expiration else { throw .missingExpiry }
        guard nowSeconds - Double(leeway) < expiration.timeIntervalSince1970 else { throw .expired }
        if let notBefore, notBefore.timeIntervalSince1970 > nowSeconds + Double(leeway) {
            throw .notYetValid
        }

        let raw: String
        switch subject {
        case .missing: throw .missingSubject
        case .notString: throw .subjectNotString
        case .value(let value): raw = value
        }
        guard let userID = UserID(raw) else { throw .unsafeSubject }
        return AuthenticatedUser(userID: userID, name: name, email: email)
    }

    private static func wholeSeconds(_ date: Date) -> Double {
        date.timeIntervalSince1970.rounded(.down)
    }
}
