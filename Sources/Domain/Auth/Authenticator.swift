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

/// Verifies requests: the `Authorization: Bearer <JWT>` header, or, when configured, the
/// claims API Gateway's authorizer already verified.
///
/// Build one at start and share it; it holds the jwt-kit key collection (HS256 only).
public struct Authenticator: Sendable {
    private let settings: AuthSettings
    private let keys: JWTKeyCollection

    /// Creates an authenticator and its key collection.
    /// - Parameter settings: The JWT settings.
    /// - Throws: ``ConfigurationError`` if the key is shorter than 32 bytes.
    public init(settings: AuthSettings) async throws {
        // Checked again here because `settings.key` is mutable after `AuthSettings.init`.
        try AuthSettings.checkKeyLength(settings.key.count, variable: AuthSettings.secretVariable)
        self.settings = settings
        self.keys = await .hs256Only(key: settings.key)
    }

    /// Authenticates one request.
    ///
    /// With `trustAPIGatewayAuthorizer` on and `authorizerClaims` non-empty, those claims are used
    /// instead of the header: API Gateway checked signature, `iss`, `aud` and `exp`, so only
    /// `sub` is checked (it must still be a valid ``UserID``). Otherwise the header's token is
    /// verified here: shape and size, header pinned to HS256 with no `kid` or other key
    /// parameters, signature (jwt-kit), `iss`, `aud`, `exp` (required) and `nbf` with the
    /// leeway, and `sub`.
    ///
    /// - Parameters:
    ///   - authorizationHeader: The raw `Authorization` header value, if any.
    ///   - authorizerClaims: Claims from API Gateway's JWT or Cognito authorizer (string
    ///     values); ignored unless `settings.trustAPIGatewayAuthorizer` is true.
    ///   - now: The current time.
    /// - Returns: The user.
    /// - Throws: ``AuthenticationError``; answer 401 with ``AuthenticationError/challenge``
    ///   and ``AuthenticationError/publicMessage``.
    public func authenticate(
        authorizationHeader: String?,
        authorizerClaims: [String: String]?,
        now: Date
    ) async throws(AuthenticationError) -> AuthenticatedUser {
        // No claims (nil or empty: no authorizer on the route) means the header is verified
        // here as usual, which is never weaker than trusting the authorizer.
        if settings.trustAPIGatewayAuthorizer, let authorizerClaims, !authorizerClaims.isEmpty {
            return try Self.user(fromAuthorizerClaims: authorizerClaims)
        }
        guard let authorizationHeader else { throw .missingCredentials }
        let token = try BearerToken.extract(from: authorizationHeader)
        try TokenHeaderPolicy.check(encodedHeader: BearerToken.headerSegment(of: token))
        let claims = try await verifiedClaims(token)
        return try claims.check(
            issuer: settings.issuer,
            audience: settings.audience,
            now: now,
            leeway: min(max(settings.leeway, 0), AuthSettings.maximumLeeway)
        )
    }

    /// Signature check and payload decoding by jwt-kit.
    private func verifiedClaims(_ token: String) async throws(AuthenticationError) -> AccessTokenClaims {
        do {
            return try await keys.verify(token, as: AccessTokenClaims.self)
        } catch let error as JWTError where error.errorType == .signatureVerificationFailed {
            throw .badSignature
        } catch let error as JWTError where error.errorType == .malformedToken {
            throw .malformedClaims
        } catch {
            throw .verificationFailed
        }
    }

    /// The user from claims an API Gateway authorizer verified; `sub` must be a valid id.
    private static func user(fromAuthorizerClaims claims: [String: String]) throws(AuthenticationError) -> AuthenticatedUser {
        guard let subject = claims["sub"] else { throw .missingSubject }
        guard let userID = UserID(subject) else { throw .unsafeSubject }
        return AuthenticatedUser(userID: userID, name: claims["name"], email: claims["email"])
    }
}
