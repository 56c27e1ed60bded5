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
    /// Cognito access tokens name the app client here and carry no `aud`.
    var clientID: String?
    /// Cognito's `id` or `access`.
    var tokenUse: String?
    /// When the user signed in (OpenID Connect; Firebase requires it in the past).
    var authTime: Date?

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

    /// The JWS signing input (RFC 7515 §5.1): `header`'s base64url, a dot, and the
    /// base64url of these claims as ``encode(to:)`` writes them. Every minter signs this.
    func signingInput(header: String) throws -> String {
        Base64URL.encode(header.utf8) + "." + Base64URL.encode(try JSONCoding.encode(self))
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
        authTime = try fields.double("auth_time").map(Date.init(timeIntervalSince1970:))
        clientID = try fields.string("client_id")
        tokenUse = try fields.string("token_use")
        name = try? fields.string("name")
        email = try? fields.string("email")
    }
}

extension AccessTokenClaims {
    /// Checks the registered claims and returns the user.
    ///
    /// `now` is taken in whole seconds and compared with the claims as numbers (a claim may
    /// carry a fraction): the token is accepted while `now - leeway < exp`, and `nbf`,
    /// `iat` and `auth_time` (when present) are at most `now + leeway`. `exp` is required:
    /// a token that never expires is refused. `aud` must contain the audience; under
    /// ``AuthSettings/Mode/jwks`` a token without `aud` may name it in `client_id` instead
    /// (Cognito's access tokens, as API Gateway's JWT authorizer accepts them). With
    /// ``AuthSettings/tokenUse`` set, `token_use` must equal it.
    /// - Parameters:
    ///   - settings: The issuer, audience, token use and leeway (clamped to 0...60 again).
    ///   - now: The current time.
    /// - Throws: ``AuthenticationError`` naming the first claim that fails.
    func check(_ settings: AuthSettings, now: Date) throws(AuthenticationError) -> AuthenticatedUser {
        guard self.issuer == settings.issuer else { throw .wrongIssuer }
        if let audience {
            guard audience.contains(settings.audience) else { throw .wrongAudience }
        } else {
            guard settings.mode == .jwks, clientID == settings.audience else { throw .wrongAudience }
        }
        if let wanted = settings.tokenUse, tokenUse != wanted { throw .wrongTokenUse }

        let nowSeconds = Self.wholeSeconds(now), leeway = Double(min(max(settings.leeway, 0), AuthSettings.maximumLeeway))
        guard let expiration else { throw .missingExpiry }
        guard nowSeconds - leeway < expiration.timeIntervalSince1970 else { throw .expired }
        for moment in [notBefore, issuedAt, authTime] {
            if let moment, moment.timeIntervalSince1970 > nowSeconds + leeway { throw .notYetValid }
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
