#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseDomain

/// How API requests are authenticated, as the environment says.
///
/// - `PAYPULSE_JWT_SECRET`: the HS256 key string, at least 32 bytes.
/// - `PAYPULSE_JWT_SECRET_ID`: instead, the secret that holds the key, as a plain string or
///   as JSON `{"key": "..."}` / `{"secret": "..."}`; read at start by ``authSettings(loadSecret:)``.
/// - `PAYPULSE_JWT_ISSUER` (default `paypulse`), `PAYPULSE_JWT_AUDIENCE` (default `paypulse-api`).
/// - `PAYPULSE_TRUST_API_GATEWAY_AUTHORIZER`: `true` / `false` (default `false`).
///
/// Outside Lambda, with neither key variable set, the public development key is used (the
/// caller warns). Inside Lambda a missing key or the development key is an error.
public struct JWTConfiguration: Sendable, Equatable {
    /// `PAYPULSE_JWT_SECRET`, if set.
    public let secret: String?
    /// `PAYPULSE_JWT_SECRET_ID`, if set.
    public let secretID: String?
    /// The required `iss`.
    public let issuer: String
    /// The value `aud` must contain.
    public let audience: String
    /// `PAYPULSE_TRUST_API_GATEWAY_AUTHORIZER` as set, checked when the settings are made.
    public let trustAPIGatewayAuthorizer: String?
    /// Whether the process runs in Lambda, where the development key is refused.
    public let insideLambda: Bool

    static let secretVariable = "PAYPULSE_JWT_SECRET"
    static let secretIDVariable = "PAYPULSE_JWT_SECRET_ID"
    static let trustVariable = "PAYPULSE_TRUST_API_GATEWAY_AUTHORIZER"

    /// Reads the variables. They are checked only by ``authSettings(loadSecret:)``: a
    /// function that serves no API route (token-refresh) needs no key and is not refused
    /// for a missing or bad one.
    init(_ reader: EnvironmentReader, insideLambda: Bool) {
        secret = reader.value(Self.secretVariable)
        secretID = reader.value(Self.secretIDVariable)
        issuer = reader.value("PAYPULSE_JWT_ISSUER") ?? AuthSettings.defaultIssuer
        audience = reader.value("PAYPULSE_JWT_AUDIENCE") ?? AuthSettings.defaultAudience
        trustAPIGatewayAuthorizer = reader.value(Self.trustVariable)
        self.insideLambda = insideLambda
    }

    /// Reads the JWT variables of `environment` alone.
    public static func fromEnvironment(_ environment: [String: String], insideLambda: Bool) -> JWTConfiguration {
        JWTConfiguration(EnvironmentReader(variables: environment), insideLambda: insideLambda)
    }

    /// The settings the authenticator uses, reading the key's secret when one is named.
    /// Outside Lambda, with neither key variable set, the development key is used.
    /// - Parameter loadSecret: Reads a secret's string value by id; called only when
    ///   `PAYPULSE_JWT_SECRET_ID` is set.
    /// - Throws: ``ConfigurationError`` naming the variable at fault; never the key.
    public func authSettings(loadSecret: @Sendable (String) async throws -> String) async throws(ConfigurationError) -> AuthSettings {
        let key: String, variable: String
        switch (secret, secretID) {
        case (.some, .some):
            // Two sources would leave it unclear which key signs and which verifies.
            throw ConfigurationError(variable: Self.secretIDVariable, problem: "set either \(Self.secretVariable) or \(Self.secretIDVariable), not both")
        case (.some(let inline), nil):
            (key, variable) = (inline, Self.secretVariable)
        case (nil, .some(let id)):
            let stored: String
            do {
                stored = try await loadSecret(id)
            } catch {
                throw ConfigurationError(variable: Self.secretIDVariable, problem: "could not read secret '\(id)': \(error)")
            }
            (key, variable) = (try Self.key(fromSecretValue: stored), Self.secretIDVariable)
        case (nil, nil):
            guard !insideLambda else {
                throw ConfigurationError(variable: Self.secretVariable, problem: "required inside Lambda (or set \(Self.secretIDVariable))")
            }
            (key, variable) = (AuthSettings.developmentKey, Self.secretVariable)
        }
        try Self.check(key: key, variable: variable, insideLambda: insideLambda)
        let trust = try EnvironmentReader.flag(trustAPIGatewayAuthorizer, variable: Self.trustVariable)
        do {
            return try AuthSettings(key: Array(key.utf8), issuer: issuer, audience: audience, trustAPIGatewayAuthorizer: trust)
        } catch {
            let variable =
                switch error.setting {
                case .key: variable
                case .issuer: "PAYPULSE_JWT_ISSUER"
                case .audience: "PAYPULSE_JWT_AUDIENCE"
                case .leeway: "leeway"
                }
            throw ConfigurationError(variable: variable, problem: error.problem)
        }
    }

    /// Refuses a short key, and the development key inside Lambda.
    private static func check(key: String, variable: String, insideLambda: Bool) throws(ConfigurationError) {
        let length = key.utf8.count
        guard length >= AuthSettings.minimumKeyLength else {
            throw ConfigurationError(variable: variable, problem: "an HS256 key must be at least \(AuthSettings.minimumKeyLength) bytes, got \(length)")
        }
        if insideLambda, key == AuthSettings.developmentKey {
            throw ConfigurationError(variable: variable, problem: "the documented development key must not be used inside Lambda")
        }
    }

    /// A secret value is the key itself, or a JSON object holding it under `key` or `secret`.
    static func key(fromSecretValue stored: String) throws(ConfigurationError) -> String {
        guard stored.first(where: { !$0.isWhitespace }) == "{" else { return stored }
        struct Wrapped: Decodable {
            var key: String?
            var secret: String?
        }
        guard let wrapped = try? JSONDecoder().decode(Wrapped.self, from: Data(stored.utf8)), let key = wrapped.key ?? wrapped.secret else {
            throw ConfigurationError(variable: secretIDVariable, problem: "the secret is JSON but has no string field 'key' or 'secret'")
        }
        return key
    }
}

extension JWTConfiguration: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The settings without the key: which source is set, never its value.
    public var description: String {
        "JWTConfiguration(secret: \(secret == nil ? "unset" : "set"), secretID: \(secretID ?? "unset"), issuer: \(issuer), "
            + "audience: \(audience), trustAPIGatewayAuthorizer: \(trustAPIGatewayAuthorizer ?? "unset"), insideLambda: \(insideLambda))"
    }

    /// The same as ``description``: a debugger or a test failure never shows the key.
    public var debugDescription: String { description }

    /// A mirror without the key, so `dump` and reflection cannot print it either.
    public var customMirror: Mirror {
        Mirror(self, children: ["secret": secret == nil ? "unset" : "[redacted]", "secretID": secretID as Any, "issuer": issuer, "audience": audience])
    }
}
