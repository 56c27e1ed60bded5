#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Crypto

/// The JWT settings, read once at start.
///
/// Under ``Mode/hs256`` tokens are HS256, minted by PayPulse and checked here under one of
/// a few shared keys (several while a key rotates). Under ``Mode/jwks`` an identity provider
/// signs them (RS256, ES256) and publishes its public keys. Under ``Mode/apigateway`` API
/// Gateway's JWT authorizer verified the token and the functions read its claims.
package struct AuthSettings: Sendable {
    /// How API requests are authenticated (`PAYPULSE_AUTH_MODE`).
    package enum Mode: String, Sendable, CaseIterable {
        /// The `Authorization` header's HS256 token, verified here.
        case hs256
        /// The `Authorization` header's RS256 or ES256 token, verified here under the keys
        /// the identity provider publishes (Cognito, Firebase, any OpenID Connect issuer).
        case jwks
        /// The claims API Gateway's JWT authorizer verified; an event without them is refused.
        case apigateway
    }

    /// The documented local development key. Anyone can read it, so it is refused inside
    /// Lambda; outside Lambda it is the default when no key is configured.
    package static let developmentKey = "paypulse-local-development-jwt-key-do-not-deploy"
    /// The shortest HS256 key accepted, in bytes (the SHA-256 output size, RFC 7518 §3.2).
    package static let minimumKeyLength = 32
    /// The most HS256 keys accepted at once: a rotation needs two; each extra key is one
    /// more MAC for a token no key signed.
    package static let maximumKeyCount = 4
    /// The largest clock-skew leeway accepted for `exp` and `nbf`, in seconds.
    package static let maximumLeeway = 60
    /// The default `iss`.
    package static let defaultIssuer = "paypulse"
    /// The default `aud`.
    package static let defaultAudience = "paypulse-api"

    /// How requests are authenticated.
    package let mode: Mode
    /// The HS256 keys (the UTF-8 of the configured strings): the first signs, any verifies.
    /// Empty under ``Mode/jwks`` and ``Mode/apigateway``.
    package let keys: [[UInt8]]
    /// The required `iss`.
    package var issuer: String
    /// The value `aud` must contain.
    package var audience: String
    /// Clock-skew leeway for `exp` and `nbf`, in seconds; never more than 60
    /// (``Authenticator`` clamps it again, since this property is mutable).
    package var leeway: Int
    /// Under ``Mode/jwks``, the `token_use` a token must carry (Cognito: `id` or `access`), if set.
    package let tokenUse: String?

    /// The key that signs (`paypulse jwt`, the console): the first.
    package var signingKey: [UInt8]? { keys.first }

    /// Whether a key is the public ``developmentKey``, so callers can warn about it.
    package var usesDevelopmentKey: Bool { keys.contains(Array(Self.developmentKey.utf8)) }

    /// Settings with one HS256 key.
    /// - Throws: ``InvalidAuthSettings``, as ``init(keys:issuer:audience:leeway:)``.
    package init(key: [UInt8], issuer: String = AuthSettings.defaultIssuer, audience: String = AuthSettings.defaultAudience, leeway: Int = AuthSettings.maximumLeeway)
        throws(InvalidAuthSettings)
    {
        try self.init(keys: [key], issuer: issuer, audience: audience, leeway: leeway)
    }

    /// HS256 settings.
    /// - Parameters:
    ///   - keys: The HS256 keys, each at least 32 bytes; the first signs, any verifies.
    ///   - issuer: The required `iss`; not empty.
    ///   - audience: The value `aud` must contain; not empty.
    ///   - leeway: Clock-skew leeway in seconds, 0...60.
    /// - Throws: ``InvalidAuthSettings`` for no key or more than ``maximumKeyCount``, a key
    ///   shorter than 32 bytes (RFC 7518 §3.2: at least the hash size), an empty issuer or
    ///   audience, or a leeway outside 0...60.
    package init(
        keys: [[UInt8]], issuer: String = AuthSettings.defaultIssuer, audience: String = AuthSettings.defaultAudience,
        leeway: Int = AuthSettings.maximumLeeway
    ) throws(InvalidAuthSettings) {
        try Self.checkKeys(keys)
        try Self.checkClaims(issuer: issuer, audience: audience, leeway: leeway)
        self.init(mode: .hs256, keys: keys, issuer: issuer, audience: audience, leeway: leeway)
    }

    private init(mode: Mode, keys: [[UInt8]], issuer: String, audience: String, leeway: Int, tokenUse: String? = nil) {
        self.mode = mode
        self.keys = keys
        self.issuer = issuer
        self.audience = audience
        self.leeway = leeway
        self.tokenUse = tokenUse
    }

    /// Settings for tokens an identity provider signs with the keys it publishes; the
    /// ``Authenticator`` is given where to fetch them.
    /// - Parameters:
    ///   - issuer: The required `iss`, exactly as the provider writes it; not empty.
    ///   - audience: The value `aud` must contain (or, with no `aud`, `client_id` equal); not empty.
    ///   - tokenUse: The `token_use` required, if any (Cognito: `id` or `access`).
    ///   - leeway: Clock-skew leeway in seconds, 0...60.
    /// - Throws: ``InvalidAuthSettings`` for an empty issuer, audience or token use, or a
    ///   leeway outside 0...60.
    package static func issuerKeys(issuer: String, audience: String, tokenUse: String? = nil, leeway: Int = AuthSettings.maximumLeeway)
        throws(InvalidAuthSettings) -> AuthSettings
    {
        try checkClaims(issuer: issuer, audience: audience, leeway: leeway)
        guard tokenUse?.isEmpty != true else { throw InvalidAuthSettings(setting: .tokenUse, problem: "must not be empty when set") }
        return AuthSettings(mode: .jwks, keys: [], issuer: issuer, audience: audience, leeway: leeway, tokenUse: tokenUse)
    }

    private static func checkClaims(issuer: String, audience: String, leeway: Int) throws(InvalidAuthSettings) {
        guard !issuer.isEmpty else {
            throw InvalidAuthSettings(setting: .issuer, problem: "must not be empty")
        }
        guard !audience.isEmpty else {
            throw InvalidAuthSettings(setting: .audience, problem: "must not be empty")
        }
        guard (0...Self.maximumLeeway).contains(leeway) else {
            throw InvalidAuthSettings(setting: .leeway, problem: "must be 0...\(Self.maximumLeeway) seconds, got \(leeway)")
        }
    }

    /// Settings that trust API Gateway's JWT authorizer: its claims are the request's
    /// identity, no key is held, nothing is verified again.
    package static let apiGatewayAuthorizer = AuthSettings(
        mode: .apigateway, keys: [], issuer: defaultIssuer, audience: defaultAudience, leeway: maximumLeeway
    )

    /// Refuses no key, too many, or one shorter than ``minimumKeyLength``.
    static func checkKeys(_ keys: [[UInt8]]) throws(InvalidAuthSettings) {
        guard (1...maximumKeyCount).contains(keys.count) else {
            throw InvalidAuthSettings(setting: .key, problem: "between 1 and \(maximumKeyCount) HS256 keys are needed, got \(keys.count)")
        }
        for (index, key) in keys.enumerated() where key.count < minimumKeyLength {
            let which = keys.count == 1 ? "an HS256 key" : "HS256 key \(index + 1) of \(keys.count)"
            throw InvalidAuthSettings(setting: .key, problem: "\(which) must be at least \(minimumKeyLength) bytes, got \(key.count)")
        }
    }
}

/// The HS256 (HMAC-SHA256) key that signs and verifies PayPulse access tokens.
///
/// The MAC is swift-crypto's; this only frames it as JWS does (RFC 7515 §5: the MAC of the
/// ASCII `header.payload`). A JWT library would bring X.509, ASN.1 and RSA code into every
/// function for one HMAC, and its key collection cost a quarter of a cold start
/// (docs/performance.md).
struct HS256Key: Sendable {
    private let key: SymmetricKey

    /// - Parameter bytes: The key; its length is checked by ``AuthSettings``.
    init(_ bytes: [UInt8]) {
        key = SymmetricKey(data: bytes)
    }

    /// The signature of `signingInput`, base64url without padding.
    func sign(_ signingInput: String) -> String {
        Base64URL.encode(HMAC<SHA256>.authenticationCode(for: Data(signingInput.utf8), using: key))
    }

    /// Whether `signature` is the MAC of `signingInput`, compared in constant time.
    func isValid(signature: Data, for signingInput: Substring) -> Bool {
        HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: Data(signingInput.utf8), using: key)
    }
}

/// JWT settings that cannot be used: which setting, and why (never the key itself).
package struct InvalidAuthSettings: Error, Sendable, Equatable, CustomStringConvertible {
    /// The settings that can be wrong.
    package enum Setting: String, Sendable {
        case key, issuer, audience, leeway, tokenUse
    }

    /// The setting at fault.
    package let setting: Setting
    /// What is wrong with it.
    package let problem: String

    /// `invalid JWT settings: setting: problem`.
    package var description: String { "invalid JWT settings: \(setting.rawValue): \(problem)" }
}
