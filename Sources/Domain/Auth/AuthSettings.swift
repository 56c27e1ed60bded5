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
