#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseCoding

/// Verifies requests: the `Authorization: Bearer <JWT>` header, or, when configured, the
/// claims API Gateway's authorizer already verified.
///
/// Build one at start and share it; it holds the HS256 key.
public struct Authenticator: Sendable {
    private let settings: AuthSettings
    private let key: HS256Key

    /// Creates an authenticator.
    /// - Parameter settings: The JWT settings.
    /// - Throws: ``InvalidAuthSettings`` if the key is shorter than 32 bytes.
    public init(settings: AuthSettings) throws(InvalidAuthSettings) {
        // Checked again here because `settings.key` is mutable after `AuthSettings.init`.
        try AuthSettings.checkKeyLength(settings.key.count)
        self.settings = settings
        self.key = HS256Key(settings.key)
    }

    /// Authenticates one request.
    ///
    /// With `trustAPIGatewayAuthorizer` on and `authorizerClaims` non-empty, those claims are used
    /// instead of the header: API Gateway checked signature, `iss`, `aud` and `exp`, so only
    /// `sub` is checked (it must still be a valid ``UserID``). Otherwise the header's token is
    /// verified here: shape and size, header pinned to HS256 with no `kid` or other key
    /// parameters, signature (HMAC-SHA256, constant-time compare), `iss`, `aud`, `exp` (required) and `nbf` with the
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
        let segments = try BearerToken.segments(of: token)
        try TokenHeaderPolicy.check(encodedHeader: segments.header)
        let claims = try verifiedClaims(segments)
        return try claims.check(
            issuer: settings.issuer,
            audience: settings.audience,
            now: now,
            leeway: min(max(settings.leeway, 0), AuthSettings.maximumLeeway)
        )
    }

    /// The signature check over `header.payload`, then the payload's claims. Nothing of the
    /// payload is decoded before its signature holds.
    private func verifiedClaims(_ segments: BearerToken.Segments) throws(AuthenticationError) -> AccessTokenClaims {
        guard let signature = Base64URL.decode(segments.signature) else { throw .malformedToken }
        guard key.isValid(signature: signature, for: segments.signingInput) else { throw .badSignature }
        guard let payload = Base64URL.decode(segments.payload), let claims = AccessTokenClaims.decode(Array(payload)) else {
            throw .malformedClaims
        }
        return claims
    }

    /// The user from claims an API Gateway authorizer verified; `sub` must be a valid id.
    private static func user(fromAuthorizerClaims claims: [String: String]) throws(AuthenticationError) -> AuthenticatedUser {
        guard let subject = claims["sub"] else { throw .missingSubject }
        guard let userID = UserID(subject) else { throw .unsafeSubject }
        return AuthenticatedUser(userID: userID, name: claims["name"], email: claims["email"])
    }
}
