#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseCoding
import PayPulsePorts

/// Verifies requests: the `Authorization: Bearer <JWT>` header under ``AuthSettings/Mode/hs256``
/// (shared keys) or ``AuthSettings/Mode/jwks`` (an identity provider's published keys), or
/// the claims API Gateway's JWT authorizer verified under ``AuthSettings/Mode/apigateway``.
///
/// Build one at start and share it; it holds the HS256 keys, or the issuer's keys once
/// fetched (kept across warm invocations).
package struct Authenticator: Sendable {
    private let settings: AuthSettings
    // Two stored properties, not an enum with a payload per mode: Swift keeps such an
    // enum's case in the spare bits of the payload's pointer, where LeakSanitizer (the
    // fuzzers) cannot see the reference and reports the cache's keys as leaked.
    /// The HS256 keys under ``AuthSettings/Mode/hs256``; empty otherwise.
    private let sharedKeys: [HS256Key]
    /// The issuer's keys under ``AuthSettings/Mode/jwks``; `nil` otherwise.
    private let issuerKeys: IssuerKeyCache?

    /// Creates an authenticator for ``AuthSettings/Mode/hs256`` or ``AuthSettings/Mode/apigateway``.
    /// - Parameter settings: The JWT settings (their keys were checked when they were made).
    ///   Under ``AuthSettings/Mode/jwks`` use ``init(settings:issuerKeys:)``.
    package init(settings: AuthSettings) {
        precondition(settings.mode != .jwks, "jwks settings need the issuer's key source")
        self.settings = settings
        self.sharedKeys = settings.keys.map(HS256Key.init)
        self.issuerKeys = nil
    }

    /// Creates an authenticator for ``AuthSettings/Mode/jwks``. Nothing is fetched until the
    /// first token arrives, so a function's start pays for no key.
    /// - Parameters:
    ///   - settings: Settings from ``AuthSettings/issuerKeys(issuer:audience:tokenUse:leeway:)``.
    ///   - issuerKeys: Where the issuer's JWKS is fetched.
    package init(settings: AuthSettings, issuerKeys: any IssuerKeySource) {
        precondition(settings.mode == .jwks, "only jwks settings verify with issuer keys")
        self.settings = settings
        self.sharedKeys = []
        self.issuerKeys = IssuerKeyCache(source: issuerKeys)
    }

    /// Authenticates one request.
    ///
    /// Under ``AuthSettings/Mode/apigateway`` the authorizer's claims are the identity: API
    /// Gateway checked signature, `iss`, `aud` and `exp`, so only `sub` is checked (it must
    /// still be a valid ``UserID``), and an event without claims (a route deployed without
    /// the authorizer) is refused. Otherwise the header's token is verified here: shape and
    /// size, the header (``TokenHeaderPolicy``), the signature (HMAC-SHA256 under any
    /// configured key with a constant-time compare, or the issuer key its `kid` names,
    /// whose algorithm must be the token's), then the claims
    /// (``AccessTokenClaims/check(_:now:)``); authorizer claims are ignored.
    ///
    /// - Parameters:
    ///   - authorizationHeader: The raw `Authorization` header value, if any.
    ///   - authorizerClaims: Claims from API Gateway's JWT authorizer (string values).
    ///   - now: The current time.
    /// - Returns: The user.
    /// - Throws: ``AuthenticationError``; answer 401 with ``AuthenticationError/challenge``
    ///   and ``AuthenticationError/publicMessage``, or 503 when it ``AuthenticationError/isUnavailable``.
    package func authenticate(
        authorizationHeader: String?,
        authorizerClaims: [String: String]?,
        now: Date
    ) async throws(AuthenticationError) -> AuthenticatedUser {
        if settings.mode == .apigateway {
            guard let authorizerClaims, !authorizerClaims.isEmpty else { throw .missingAuthorizerClaims }
            return try Self.user(fromAuthorizerClaims: authorizerClaims)
        }
        guard let authorizationHeader else { throw .missingCredentials }
        let token = try BearerToken.extract(from: authorizationHeader)
        let segments = try BearerToken.segments(of: token)
        guard let signature = Base64URL.decode(segments.signature) else { throw .malformedToken }
        if let issuerKeys {
            let header = try TokenHeaderPolicy.check(encodedHeader: segments.header, rule: .issuerKey)
            let keys: IssuerKeySet
            do { keys = try await issuerKeys.keySet(for: header.keyID, now: now) } catch { throw .keysUnavailable }
            switch keys.check(signature: signature, of: segments.signingInput, kid: header.keyID, algorithm: header.algorithm) {
            case .verified: break
            case .unknownKey: throw .unknownKey
            case .algorithmMismatch: throw .algorithmNotAllowed
            case .badSignature: throw .badSignature
            }
        } else {
            _ = try TokenHeaderPolicy.check(encodedHeader: segments.header, rule: .sharedKey)
            guard sharedKeys.contains(where: { $0.isValid(signature: signature, for: segments.signingInput) }) else { throw .badSignature }
        }
        // Nothing of the payload is decoded before its signature holds.
        guard let payload = Base64URL.decode(segments.payload), let claims = AccessTokenClaims.decode(Array(payload)) else {
            throw .malformedClaims
        }
        return try claims.check(settings, now: now)
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
/// The algorithm is pinned, never taken from the token alone. Under ``Rule/sharedKey``
/// `alg` must be exactly `HS256` and only `alg` and `typ` may appear. Under
/// ``Rule/issuerKey`` `alg` must be RS256 or ES256 (and later the named key's own) and
/// `kid` may appear too; under ``Rule/securityEvent`` likewise, RS256 alone. Every rule
/// refuses `none`, HS/RS confusion, and the key-carrying parameters (`jku`, `jwk`, `x5u`,
/// `x5c`) and `crit`, which a verifier must otherwise understand.
enum TokenHeaderPolicy {
    /// Which tokens the header may announce.
    enum Rule {
        /// HS256 under a shared key; no `kid`.
        case sharedKey
        /// RS256 or ES256 under an issuer's key, which `kid` may name.
        case issuerKey
        /// RS256 under a key of Google's RISC set, which `kid` may name (Google signs
        /// Security Event Tokens with nothing else).
        case securityEvent
    }

    /// What the header says, once allowed.
    struct Header: Equatable {
        var algorithm: String
        var keyID: String?
    }

    /// The only algorithm accepted under ``Rule/sharedKey``.
    static let algorithm = "HS256"
    /// The longest `kid` accepted: providers use 20 to 64 characters.
    static let maximumKeyIDLength = 256
    /// `typ` values allowed under ``Rule/issuerKey``: plain JWTs, and OAuth access tokens
    /// (RFC 9068) as Auth0 and others mark them. PayPulse's own tokens are `JWT` only.
    private static let issuerTypes: Set<String> = ["JWT", "AT+JWT", "APPLICATION/AT+JWT"]
    /// `typ` values allowed under ``Rule/securityEvent``: Google states none; RFC 8417 §2.3
    /// recommends `secevent+jwt`.
    private static let securityEventTypes: Set<String> = ["JWT", "SECEVENT+JWT", "APPLICATION/SECEVENT+JWT"]

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
    /// - Returns: The algorithm and `kid`.
    /// - Throws: ``AuthenticationError`` when the header is not JSON, announces an algorithm
    ///   the rule does not allow, or carries a parameter the rule does not allow (`typ`,
    ///   when present, must be `JWT`, or under ``Rule/issuerKey`` also `at+jwt`, under
    ///   ``Rule/securityEvent`` `secevent+jwt`; `kid` a string of at most 256 characters).
    static func check(encodedHeader: Substring, rule: Rule) throws(AuthenticationError) -> Header {
        guard let json = Base64URL.decode(encodedHeader), let fields = headerFields(Array(json)) else { throw .malformedHeader }
        guard case .string(let algorithm)? = fields["alg"] else { throw .algorithmNotAllowed }
        let allowedParameters: Set<String>, allowedTypes: Set<String>
        switch rule {
        case .sharedKey:
            guard algorithm == Self.algorithm else { throw .algorithmNotAllowed }
            (allowedParameters, allowedTypes) = (["alg", "typ"], ["JWT"])
        case .issuerKey:
            guard AsymmetricAlgorithm(rawValue: algorithm) != nil else { throw .algorithmNotAllowed }
            (allowedParameters, allowedTypes) = (["alg", "typ", "kid"], issuerTypes)
        case .securityEvent:
            guard algorithm == AsymmetricAlgorithm.rs256.rawValue else { throw .algorithmNotAllowed }
            (allowedParameters, allowedTypes) = (["alg", "typ", "kid"], securityEventTypes)
        }
        guard fields.keys.allSatisfy(allowedParameters.contains) else { throw .unexpectedHeaderParameter }
        if let typ = fields["typ"] {
            guard case .string(let value) = typ, allowedTypes.contains(value.uppercased()) else { throw .unexpectedHeaderParameter }
        }
        var keyID: String?
        if let kid = fields["kid"] {
            guard case .string(let value) = kid, (1...maximumKeyIDLength).contains(value.utf8.count) else { throw .unexpectedHeaderParameter }
            keyID = value
        }
        return Header(algorithm: algorithm, keyID: keyID)
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
package struct AuthenticatedUser: Sendable, Equatable {
    /// The verified `sub`.
    package var userID: UserID
    /// The `name` claim, if it is a string.
    package var name: String?
    /// The `email` claim, if it is a string.
    package var email: String?

    /// Creates a user.
    /// - Parameters:
    ///   - userID: The verified `sub`.
    ///   - name: The `name` claim, if any.
    ///   - email: The `email` claim, if any.
    package init(userID: UserID, name: String? = nil, email: String? = nil) {
        self.userID = userID
        self.name = name
        self.email = email
    }
}
