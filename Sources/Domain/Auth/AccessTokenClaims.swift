#if canImport(FoundationEssentials)
import FoundationEssentials
#else
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#endif
import JWTKit

/// The claims of a PayPulse access token, as jwt-kit decodes them after the signature check.
///
/// Decoding is strict for the registered claims (a wrongly typed `iss`, `aud`, `exp` or
/// `nbf` fails the token) and lenient for `name` / `email` (kept only if strings).
/// `sub` is decoded by hand so a missing and a non-string `sub` give distinct reasons.
struct AccessTokenClaims: JWTPayload {
    /// What the token says about `sub`.
    enum Subject: Sendable, Equatable {
        case missing
        case notString
        case value(String)
    }

    var subject: Subject
    var issuer: IssuerClaim?
    var audience: AudienceClaim?
    var expiration: ExpirationClaim?
    var notBefore: NotBeforeClaim?
    var issuedAt: IssuedAtClaim?
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
        self.issuer = IssuerClaim(value: issuer)
        self.audience = AudienceClaim(value: [audience])
        self.issuedAt = IssuedAtClaim(value: issuedAt)
        self.expiration = ExpirationClaim(value: expiresAt)
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
        issuer = try container.decodeIfPresent(IssuerClaim.self, forKey: .issuer)
        audience = try container.decodeIfPresent(AudienceClaim.self, forKey: .audience)
        expiration = try container.decodeIfPresent(ExpirationClaim.self, forKey: .expiration)
        notBefore = try container.decodeIfPresent(NotBeforeClaim.self, forKey: .notBefore)
        issuedAt = try container.decodeIfPresent(IssuedAtClaim.self, forKey: .issuedAt)
        name = try? container.decodeIfPresent(String.self, forKey: .name)
        email = try? container.decodeIfPresent(String.self, forKey: .email)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if case .value(let subject) = subject {
            try container.encode(subject, forKey: .subject)
        }
        try container.encodeIfPresent(issuer, forKey: .issuer)
        try container.encodeIfPresent(audience, forKey: .audience)
        try container.encodeIfPresent(issuedAt, forKey: .issuedAt)
        try container.encodeIfPresent(notBefore, forKey: .notBefore)
        try container.encodeIfPresent(expiration, forKey: .expiration)
        try container.encodeIfPresent(name, forKey: .name)
        try container.encodeIfPresent(email, forKey: .email)
    }

    /// Does nothing on purpose: jwt-kit calls this without a clock or the expected issuer
    /// and audience, so ``check(issuer:audience:now:leeway:)`` does the claim checks right
    /// after, against the injected `now`.
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
