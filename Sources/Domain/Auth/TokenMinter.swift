#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Signs PayPulse access tokens for a user: the console and `paypulse jwt` take whichever
/// the configuration calls for (``DevelopmentTokenMinter``, ``IssuerTokenMinter``).
package protocol TokenMinter: Sendable {
    /// Signs a token with `sub`, `iss`, `aud`, `iat`, `exp` and optional `name` / `email`.
    /// - Parameters:
    ///   - subject: The `sub` (the user id).
    ///   - name: The `name` claim, if any.
    ///   - email: The `email` claim, if any.
    ///   - issuedAt: The `iat`, rounded down to whole seconds.
    ///   - expiresAt: The `exp`, rounded down to whole seconds.
    /// - Returns: The compact token.
    /// - Throws: An error when the claims cannot be encoded or signed.
    func mint(subject: String, name: String?, email: String?, issuedAt: Date, expiresAt: Date) throws -> String
}
