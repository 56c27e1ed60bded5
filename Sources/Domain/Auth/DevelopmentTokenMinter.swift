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
    /// - Throws: ``InvalidAuthSettings`` without a usable key: under
    ///   ``AuthSettings/Mode/jwks`` the identity provider signs, under
    ///   ``AuthSettings/Mode/apigateway`` the issuer API Gateway's authorizer trusts.
    package init(settings: AuthSettings) throws(InvalidAuthSettings) {
        guard settings.mode == .hs256, let signingKey = settings.signingKey else {
            throw InvalidAuthSettings(setting: .key, problem: Self.noKey(settings.mode))
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

    /// Why no token can be minted here under `mode`, and how to get one.
    package static func noKey(_ mode: AuthSettings.Mode) -> String {
        let signer = mode == .apigateway
            ? "the issuer API Gateway's JWT authorizer trusts signs the app's tokens"
            : "your identity provider (PAYPULSE_JWT_ISSUER) signs the app's tokens"
        return "under PAYPULSE_AUTH_MODE=\(mode.rawValue) no key is held here: \(signer); sign in with it, "
            + "or run `paypulse serve --issuer` and mint with `paypulse jwt --alg ES256`"
    }
}
