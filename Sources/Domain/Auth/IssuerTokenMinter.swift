#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseCoding

/// Mints RS256 / ES256 tokens as an identity provider would: the local issuer of
/// `paypulse serve --issuer` and `paypulse jwt --alg`. The claims are
/// ``DevelopmentTokenMinter``'s, encoded by the same code; the header names the key's `kid`.
///
/// The subject is not validated here, so tests can mint hostile tokens; the CLI checks it.
package struct IssuerTokenMinter: TokenMinter {
    private let key: IssuerSigningKey
    private let issuer: String
    private let audience: String
    private let header: String

    /// Creates a minter.
    /// - Parameters:
    ///   - key: The private key that signs; its algorithm and `kid` go in the header.
    ///   - issuer: The `iss`.
    ///   - audience: The `aud`.
    package init(key: IssuerSigningKey, issuer: String, audience: String) {
        self.key = key
        self.issuer = issuer
        self.audience = audience
        // Sorted keys, as JSONCoding writes: {"alg":…,"kid":…,"typ":"JWT"}.
        header = (try? JSONCoding.string(["alg": key.algorithm.rawValue, "kid": key.id, "typ": "JWT"])) ?? ""
    }

    package func mint(subject: String, name: String?, email: String?, issuedAt: Date, expiresAt: Date) throws -> String {
        let claims = AccessTokenClaims(
            subject: subject, issuer: issuer, audience: audience, issuedAt: issuedAt, expiresAt: expiresAt, name: name, email: email
        )
        let signingInput = try claims.signingInput(header: header)
        return signingInput + "." + (try key.sign(signingInput))
    }
}
