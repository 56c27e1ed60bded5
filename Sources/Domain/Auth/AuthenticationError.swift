/// Why authentication failed.
///
/// Callers answer 401 with `WWW-Authenticate: Bearer` (``challenge``) and the generic
/// ``publicMessage``, whatever the reason, except when ``isUnavailable``: then the token
/// could not be checked at all (the issuer's keys could not be fetched) and the answer is a
/// 503, so the app tries again instead of signing the user out. ``reason`` is for debug logs only: it is a fixed
/// phrase chosen here, never a piece of the token or of any other request value.
package struct AuthenticationError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: String, Sendable {
        case missingCredentials = "no Authorization header"
        case missingAuthorizerClaims = "the event carries no authorizer claims (under apigateway API Gateway's JWT authorizer passes them; is it attached to the route?)"
        case notBearer = "the Authorization scheme is not Bearer"
        case malformedAuthorization = "the Authorization header is not 'Bearer <token>'"
        case tokenTooLarge = "the token is larger than 8 KiB"
        case malformedToken = "the token is not a compact JWS"
        case malformedHeader = "the token header is not a JSON object"
        case algorithmNotAllowed = "the token algorithm is not the one the mode (HS256) or the key (RS256, ES256) pins"
        case unexpectedHeaderParameter = "the token header has a parameter other than alg, typ (and kid under jwks)"
        case unknownKey = "no key of the issuer's set matches the token's kid (or the set has several and the token names none)"
        case keysUnavailable = "the issuer's keys could not be fetched"
        case badSignature = "the token signature does not verify"
        case malformedClaims = "the token claims do not decode"
        case wrongIssuer = "iss is missing or not the configured issuer"
        case wrongAudience = "aud is missing or does not contain the configured audience"
        case missingExpiry = "exp is missing"
        case expired = "the token expired (beyond the leeway)"
        case notYetValid = "the token is not valid yet (nbf, iat or auth_time beyond the leeway)"
        case wrongTokenUse = "token_use is not the configured one"
        case missingSubject = "sub is missing"
        case subjectNotString = "sub is not a string"
        case unsafeSubject = "sub is not a safe user id"
    }

    private let code: Code

    private init(_ code: Code) {
        self.code = code
    }

    /// Whether the token could not be checked because the issuer's keys are unreachable:
    /// a 503 `upstream_unavailable`, not a 401.
    package var isUnavailable: Bool { code == .keysUnavailable }

    /// What went wrong, for debug logs. Never contains the token.
    package var reason: String { code.rawValue }

    /// `unauthorized: <reason>`.
    package var description: String { "unauthorized: \(reason)" }

    /// The only message a client sees, whatever the reason.
    package static let publicMessage = "Missing or invalid bearer token."
    /// The `WWW-Authenticate` value to send with the 401.
    package static let challenge = "Bearer"

    /// No `Authorization` header (and no authorizer claims to use instead).
    package static let missingCredentials = Self(.missingCredentials)
    /// Under `apigateway`, an event without the authorizer's claims (a route without the
    /// authorizer, or a direct invocation).
    package static let missingAuthorizerClaims = Self(.missingAuthorizerClaims)
    /// A scheme other than Bearer, e.g. Basic.
    package static let notBearer = Self(.notBearer)
    /// Bearer with no token, or with more than one.
    package static let malformedAuthorization = Self(.malformedAuthorization)
    /// The token (or header) is over 8 KiB; refused before parsing.
    package static let tokenTooLarge = Self(.tokenTooLarge)
    /// Not three non-empty base64url segments.
    package static let malformedToken = Self(.malformedToken)
    /// The header segment is not a JSON object.
    package static let malformedHeader = Self(.malformedHeader)
    /// `alg` is not the pinned one: not exactly `HS256` under `hs256` (`none`, HS384, RS256,
    /// ...); under `jwks` not RS256 or ES256, or not the algorithm of the key it names.
    package static let algorithmNotAllowed = Self(.algorithmNotAllowed)
    /// A header parameter such as `jku`, `jwk`, `x5u` or `crit` (and `kid` under `hs256`).
    package static let unexpectedHeaderParameter = Self(.unexpectedHeaderParameter)
    /// Under `jwks`: the `kid` names no key of the set, even after the one refetch allowed.
    package static let unknownKey = Self(.unknownKey)
    /// Under `jwks`: no key set could be fetched; answer 503, not 401.
    package static let keysUnavailable = Self(.keysUnavailable)
    /// `token_use` differs from the configured one (Cognito's `id` / `access`).
    package static let wrongTokenUse = Self(.wrongTokenUse)
    /// The HS256 signature is wrong.
    package static let badSignature = Self(.badSignature)
    /// The payload is not a JSON object of well-typed claims.
    package static let malformedClaims = Self(.malformedClaims)
    /// `iss` missing or different.
    package static let wrongIssuer = Self(.wrongIssuer)
    /// `aud` missing or without the configured audience.
    package static let wrongAudience = Self(.wrongAudience)
    /// No `exp`: tokens that never expire are refused.
    package static let missingExpiry = Self(.missingExpiry)
    /// `exp` passed by more than the leeway.
    package static let expired = Self(.expired)
    /// `nbf`, `iat` or `auth_time` ahead by more than the leeway.
    package static let notYetValid = Self(.notYetValid)
    /// No `sub`.
    package static let missingSubject = Self(.missingSubject)
    /// `sub` present but not a string.
    package static let subjectNotString = Self(.subjectNotString)
    /// `sub` is not a valid ``UserID``.
    package static let unsafeSubject = Self(.unsafeSubject)
}
