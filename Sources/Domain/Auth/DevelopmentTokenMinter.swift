#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Mints HS256 tokens with the configured signing key (the first), issuer and audience, for
/// the `paypulse jwt` CLI, tests and sample events.
///
/// The subject is not validated here, so tests can mint hostile tokens; the CLI checks it.
package struct DevelopmentTokenMinter: TokenMinter {
    private let settings: AuthSettings
    private let key: HS256Key

    /// Creates a minter.
    /// - Parameter settings: The JWT settings whose key, issuer and audience tokens carry.
    /// - Throws: ``InvalidAuthSettings`` without a usable key (under
    ///   ``AuthSettings/Mode/apigateway`` there is none: API Gateway's issuer mints).
    package init(settings: AuthSettings) throws(InvalidAuthSettings) {
        guard settings.mode == .hs256, let signingKey = settings.signingKey else {
            throw InvalidAuthSettings(setting: .key, problem: "under PAYPULSE_AUTH_MODE=\(settings.mode.rawValue) no key is held: tokens come from the issuer API Gateway trusts")
        }
        self.settings = settings
        self.key = HS256Key(signingKey)
    }

    /// Signs a token with `sub`, `iss`, `aud`, `iat`, `exp` and optional `name` / `email`.
    /// - Parameters:
    ///   - subject: The `sub` (the user id).
    ///   - name: The `name` claim, if any.
    ///   - email: The `email` claim, if any.
    ///   - issuedAt: The `iat`, rounded down to whole seconds.
    ///   - expiresAt: The `exp`, rounded down to whole seconds.
    /// - Returns: The compact token.
    /// - Throws: An `EncodingError` if the claims cannot be encoded.
    package func mint(subject: String, name: String?, email: String?, issuedAt: Date, expiresAt: Date) throws -> String {
        let claims = AccessTokenClaims(
            subject: subject,
            issuer: settings.issuer,
            audience: settings.audience,
            issuedAt: issuedAt,
            expiresAt: expiresAt,
            name: name,
            email: email
        )
        let signingInput = try claims.signingInput(header: Self.header)
        return signingInput + "." + key.sign(signingInput)
    }

    private static let header = #"{"alg":"HS256","typ":"JWT"}"#
}
