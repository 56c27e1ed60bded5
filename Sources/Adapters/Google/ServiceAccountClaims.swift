#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a Google API asks of a service account's self-signed token (a JWT in place of an
/// OAuth access token): `iss` and `sub` the account's address, `aud` the API's service
/// name, `iat` and `exp` at most an hour apart.
package struct ServiceAccountClaims: Sendable, Equatable {
    /// The account's address: both `iss` and `sub`.
    package let email: String
    /// The `aud`, e.g. ``RISCManagementClient/audience``.
    package let audience: String
    /// The `iat`.
    package let issuedAt: Date
    /// The `exp`.
    package let expiresAt: Date

    /// Claims for `email` and `audience` from `issuedAt` for `lifetime`.
    /// - Parameters:
    ///   - email: The service account's `client_email`.
    ///   - audience: The API's service name.
    ///   - issuedAt: Now.
    ///   - lifetime: Google accepts an hour at most.
    package init(email: String, audience: String, issuedAt: Date, lifetime: Duration = .seconds(3600)) {
        self.email = email
        self.audience = audience
        self.issuedAt = issuedAt
        expiresAt = issuedAt.addingTimeInterval(TimeInterval(lifetime.components.seconds))
    }
}

/// Signs ``ServiceAccountClaims`` with the service account's private key: the compact RS256
/// JWT whose header names the key file's `private_key_id` as `kid`. The signer lives where
/// the keys are handled (the domain's `IssuerSigningKey`); the composition hands it in.
package typealias ServiceAccountSigner = @Sendable (ServiceAccountClaims) throws -> String
