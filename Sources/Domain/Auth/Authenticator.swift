#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseCoding

/// Verifies requests: the `Authorization: Bearer <JWT>` header under ``AuthSettings/Mode/hs256``,
/// or the claims API Gateway's JWT authorizer verified under ``AuthSettings/Mode/apigateway``.
///
/// Build one at start and share it; it holds the HS256 keys.
public struct Authenticator: Sendable {
    private let settings: AuthSettings
    private let keys: [HS256Key]

    /// Creates an authenticator.
    /// - Parameter settings: The JWT settings (their keys were checked when they were made).
    public init(settings: AuthSettings) {
        self.settings = settings
        self.keys = settings.keys.map(HS256Key.init)
    }

    /// Authenticates one request.
    ///
    /// Under ``AuthSettings/Mode/apigateway`` the authorizer's claims are the identity: API
    /// Gateway checked signature, `iss`, `aud` and `exp`, so only `sub` is checked (it must
    /// still be a valid ``UserID``), and an event without claims (a route deployed without
    /// the authorizer) is refused. Under ``AuthSettings/Mode/hs256`` the header's token is
    /// verified here: shape and size, header pinned to HS256 with no `kid` or other key
    /// parameters, signature (HMAC-SHA256 under any configured key, constant-time compare),
    /// `iss`, `aud`, `exp` (required) and `nbf` with the leeway, and `sub`; authorizer
    /// claims are ignored.
    ///
    /// - Parameters:
    ///   - authorizationHeader: The raw `Authorization` header value, if any.
    ///   - authorizerClaims: Claims from API Gateway's JWT authorizer (string values).
    ///   - now: The current time.
    /// - Returns: The user.
    /// - Throws: ``AuthenticationError``; answer 401 with ``AuthenticationError/challenge``
    ///   and ``AuthenticationError/publicMessage``.
    public func authenticate(
        authorizationHeader: String?,
        authorizerClaims: [String: String]?,
        now: Date
    ) async throws(AuthenticationError) -> AuthenticatedUser {
        if settings.mode == .apigateway {
            guard let authorizerClaims, !authorizerClaims.isEmpty else { throw .missingCredentials }
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
        guard keys.contains(where: { $0.isValid(signature: signature, for: segments.signingInput) }) else { throw .badSignature }
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

/// The JOSE header rules, checked on the raw header before the signature.
///
/// The algorithm is pinned, never taken from the token: `alg` must be exactly `HS256`,
/// and only `alg` and `typ` may appear. That refuses `none`, every other algorithm
/// (HS/RS confusion), and key-selection parameters (`kid`, `jku`, `jwk`, `x5u`, `x5c`) and
/// `crit`, which a verifier must otherwise understand.
enum TokenHeaderPolicy {
    /// The only algorithm accepted.
    static let algorithm = "HS256"
    private static let allowedParameters: Set<String> = ["alg", "typ"]

    /// A header parameter's value: a string, or anything else JSON allows.
    enum HeaderValue: Decodable, Equatable {
        case string(String)
        case other

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            self = (try? container.decode(String.self)).map(Self.string) ?? .other
        }
    }

    /// Checks the base64url header segment.
    /// - Throws: ``AuthenticationError`` when the header is not JSON, pins another algorithm,
    ///   or carries a parameter other than `alg` and `typ` (`typ`, when present, must be `JWT`).
    static func check(encodedHeader: Substring) throws(AuthenticationError) {
        guard let json = Base64URL.decode(encodedHeader), let fields = headerFields(Array(json)) else { throw .malformedHeader }
        guard fields["alg"] == .string(algorithm) else { throw .algorithmNotAllowed }
        guard fields.keys.allSatisfy(allowedParameters.contains) else { throw .unexpectedHeaderParameter }
        if let typ = fields["typ"] {
            guard case .string(let value) = typ, value.uppercased() == "JWT" else { throw .unexpectedHeaderParameter }
        }
    }

    /// The header's members as `JSONDecoder` reads `[String: HeaderValue]`, through
    /// ``JSONValue/fastParse(_:)`` where it answers (JSONDecoder was most of a check).
    private static func headerFields(_ json: [UInt8]) -> [String: HeaderValue]? {
        guard let value = JSONValue.fastParse(json) else { return try? JSONDecoder().decode([String: HeaderValue].self, from: Data(json)) }
        return value.objectValue?.mapValues { $0.stringValue.map(HeaderValue.string) ?? .other }
    }
}

/// Who the request is from: the verified `sub` and, when the token carries them, the
/// `name` and `email` claims.
public struct AuthenticatedUser: Sendable, Equatable {
    /// The verified `sub`.
    public var userID: UserID
    /// The `name` claim, if it is a string.
    public var name: String?
    /// The `email` claim, if it is a string.
    public var email: String?

    /// Creates a user.
    /// - Parameters:
    ///   - userID: The verified `sub`.
    ///   - name: The `name` claim, if any.
    ///   - email: The `email` claim, if any.
    public init(userID: UserID, name: String? = nil, email: String? = nil) {
        self.userID = userID
        self.name = name
        self.email = email
    }
}
