#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Crypto

/// The JWT settings, read once at start.
///
/// Tokens are HS256 only: one shared key, minted by PayPulse and checked here.
public struct AuthSettings: Sendable {
    /// The documented local development key. Anyone can read it, so it is refused inside
    /// Lambda; outside Lambda it is the default when no key is configured.
    public static let developmentKey = "paypulse-local-development-jwt-key-do-not-deploy"
    /// The shortest HS256 key accepted, in bytes (the SHA-256 output size, RFC 7518 §3.2).
    public static let minimumKeyLength = 32
    /// The largest clock-skew leeway accepted for `exp` and `nbf`, in seconds.
    public static let maximumLeeway = 60
    /// The default `iss`.
    public static let defaultIssuer = "paypulse"
    /// The default `aud`.
    public static let defaultAudience = "paypulse-api"

    /// HS256 key bytes (the UTF-8 of the configured string).
    public var key: [UInt8]
    /// The required `iss`.
    public var issuer: String
    /// The value `aud` must contain.
    public var audience: String
    /// Whether claims verified by API Gateway's JWT or Cognito authorizer are used instead
    /// of verifying the `Authorization` header here.
    public var trustAPIGatewayAuthorizer: Bool
    /// Clock-skew leeway for `exp` and `nbf`, in seconds; never more than 60
    /// (``Authenticator`` clamps it again, since this property is mutable).
    public var leeway: Int

    /// Whether the key is the public ``developmentKey``, so callers can warn about it.
    public var usesDevelopmentKey: Bool { key == Array(Self.developmentKey.utf8) }

    /// Creates settings.
    /// - Parameters:
    ///   - key: The HS256 key bytes, at least 32.
    ///   - issuer: The required `iss`; not empty.
    ///   - audience: The value `aud` must contain; not empty.
    ///   - trustAPIGatewayAuthorizer: Use API Gateway's authorizer claims instead of the header.
    ///   - leeway: Clock-skew leeway in seconds, 0...60.
    /// - Throws: ``InvalidAuthSettings`` for a key shorter than 32 bytes (RFC 7518 §3.2: at
    ///   least the hash size), an empty issuer or audience, or a leeway outside 0...60.
    public init(
        key: [UInt8],
        issuer: String = AuthSettings.defaultIssuer,
        audience: String = AuthSettings.defaultAudience,
        trustAPIGatewayAuthorizer: Bool = false,
        leeway: Int = AuthSettings.maximumLeeway
    ) throws(InvalidAuthSettings) {
        try Self.checkKeyLength(key.count)
        guard !issuer.isEmpty else {
            throw InvalidAuthSettings(setting: .issuer, problem: "must not be empty")
        }
        guard !audience.isEmpty else {
            throw InvalidAuthSettings(setting: .audience, problem: "must not be empty")
        }
        guard (0...Self.maximumLeeway).contains(leeway) else {
            throw InvalidAuthSettings(setting: .leeway, problem: "must be 0...\(Self.maximumLeeway) seconds, got \(leeway)")
        }
        self.key = key
        self.issuer = issuer
        self.audience = audience
        self.trustAPIGatewayAuthorizer = trustAPIGatewayAuthorizer
        self.leeway = leeway
    }

    /// Refuses a key shorter than ``minimumKeyLength``.
    static func checkKeyLength(_ count: Int) throws(InvalidAuthSettings) {
        guard count >= minimumKeyLength else {
            throw InvalidAuthSettings(setting: .key, problem: "an HS256 key must be at least \(minimumKeyLength) bytes, got \(count)")
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
public struct InvalidAuthSettings: Error, Sendable, Equatable, CustomStringConvertible {
    /// The settings that can be wrong.
    public enum Setting: String, Sendable {
        case key, issuer, audience, leeway
    }

    /// The setting at fault.
    public let setting: Setting
    /// What is wrong with it.
    public let problem: String

    /// `invalid JWT settings: setting: problem`.
    public var description: String { "invalid JWT settings: \(setting.rawValue): \(problem)" }
}
