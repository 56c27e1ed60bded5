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

/// Mints HS256 tokens with the configured key, issuer and audience, for the `paypulse jwt`
/// CLI, tests and sample events.
///
/// The subject is not validated here, so tests can mint hostile tokens; the CLI checks it.
public struct DevelopmentTokenMinter: Sendable {
    private let settings: AuthSettings
    private let keys: JWTKeyCollection

    /// Creates a minter.
    /// - Parameter settings: The JWT settings whose key, issuer and audience tokens carry.
    /// - Throws: ``ConfigurationError`` if the key is shorter than 32 bytes.
    public init(settings: AuthSettings) async throws {
        try AuthSettings.checkKeyLength(settings.key.count, variable: AuthSettings.secretVariable)
        self.settings = settings
        self.keys = await .hs256Only(key: settings.key)
    }

    /// Signs a token with `sub`, `iss`, `aud`, `iat`, `exp` and optional `name` / `email`.
    /// - Parameters:
    ///   - subject: The `sub` (the user id).
    ///   - name: The `name` claim, if any.
    ///   - email: The `email` claim, if any.
    ///   - issuedAt: The `iat`, rounded down to whole seconds.
    ///   - expiresAt: The `exp`, rounded down to whole seconds.
    /// - Returns: The compact token.
    /// - Throws: An encoding or signing error from jwt-kit.
    public func mint(subject: String, name: String?, email: String?, issuedAt: Date, expiresAt: Date) async throws -> String {
        let claims = AccessTokenClaims(
            subject: subject,
            issuer: settings.issuer,
            audience: settings.audience,
            issuedAt: Self.wholeSeconds(issuedAt),
            expiresAt: Self.wholeSeconds(expiresAt),
            name: name,
            email: email
        )
        return try await keys.sign(claims)
    }

    // NumericDate is whole seconds; a fraction would encode as a JSON decimal.
    private static func wholeSeconds(_ date: Date) -> Date {
        Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
    }
}
