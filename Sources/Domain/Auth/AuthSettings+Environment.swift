#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension AuthSettings {
    /// Reads the JWT settings from environment variables.
    ///
    /// - `PAYPULSE_JWT_SECRET`: the HS256 key string, at least 32 bytes.
    /// - `PAYPULSE_JWT_SECRET_ID`: instead, the Secrets Manager secret that holds the key,
    ///   as a plain string or as JSON `{"key": "..."}` / `{"secret": "..."}`.
    /// - `PAYPULSE_JWT_ISSUER` (default `paypulse`), `PAYPULSE_JWT_AUDIENCE` (default `paypulse-api`).
    /// - `PAYPULSE_TRUST_API_GATEWAY_AUTHORIZER`: `true` / `false` (default `false`).
    ///
    /// Outside Lambda, with neither key variable set, the public ``developmentKey`` is used
    /// (``usesDevelopmentKey`` is then true, for the caller to warn). Inside Lambda a missing
    /// key or the development key is an error.
    ///
    /// - Parameters:
    ///   - environment: The variables, e.g. `ProcessInfo.processInfo.environment`.
    ///   - insideLambda: Whether this runs in Lambda (`AWS_LAMBDA_FUNCTION_NAME` set).
    ///   - loadSecret: Reads a secret's string value by id; called only when
    ///     `PAYPULSE_JWT_SECRET_ID` is set.
    /// - Throws: ``ConfigurationError`` naming the variable at fault.
    public static func fromEnvironment(
        _ environment: [String: String],
        insideLambda: Bool,
        loadSecret: @Sendable (String) async throws -> String
    ) async throws -> AuthSettings {
        func value(_ name: String) -> String? {
            guard let raw = environment[name], !raw.allSatisfy(\.isWhitespace) else { return nil }
            return raw
        }
        let (key, variable) = try await keyString(
            secret: value(secretVariable), secretID: value(secretIDVariable), insideLambda: insideLambda, loadSecret: loadSecret
        )
        try checkKeyLength(key.utf8.count, variable: variable)
        if insideLambda, key == developmentKey {
            throw ConfigurationError(variable: variable, problem: "the documented development key must not be used inside Lambda")
        }
        let trust = try flag(value(trustVariable), variable: trustVariable)
        return try AuthSettings(
            key: Array(key.utf8),
            issuer: value("PAYPULSE_JWT_ISSUER") ?? defaultIssuer,
            audience: value("PAYPULSE_JWT_AUDIENCE") ?? defaultAudience,
            trustAPIGatewayAuthorizer: trust
        )
    }

    static let secretVariable = "PAYPULSE_JWT_SECRET"
    static let secretIDVariable = "PAYPULSE_JWT_SECRET_ID"
    static let trustVariable = "PAYPULSE_TRUST_API_GATEWAY_AUTHORIZER"

    /// The key string and the variable it came from (for error messages).
    private static func keyString(
        secret: String?, secretID: String?, insideLambda: Bool,
        loadSecret: @Sendable (String) async throws -> String
    ) async throws -> (String, String) {
        switch (secret, secretID) {
        case (.some, .some):
            // Two sources would leave it unclear which key signs and which verifies.
            throw ConfigurationError(variable: secretIDVariable, problem: "set either \(secretVariable) or \(secretIDVariable), not both")
        case (.some(let secret), nil):
            return (secret, secretVariable)
        case (nil, .some(let id)):
            let stored: String
            do {
                stored = try await loadSecret(id)
            } catch {
                throw ConfigurationError(variable: secretIDVariable, problem: "could not read secret '\(id)': \(error)")
            }
            return (try keyFromSecretValue(stored), secretIDVariable)
        case (nil, nil):
            guard !insideLambda else {
                throw ConfigurationError(variable: secretVariable, problem: "required inside Lambda (or set \(secretIDVariable))")
            }
            return (developmentKey, secretVariable)
        }
    }

    /// A secret value is the key itself, or a JSON object holding it under `key` or `secret`.
    static func keyFromSecretValue(_ stored: String) throws(ConfigurationError) -> String {
        guard stored.first(where: { !$0.isWhitespace }) == "{" else { return stored }
        struct Wrapped: Decodable {
            var key: String?
            var secret: String?
        }
        guard let wrapped = try? JSONDecoder().decode(Wrapped.self, from: Data(stored.utf8)),
              let key = wrapped.key ?? wrapped.secret else {
            throw ConfigurationError(
                variable: secretIDVariable,
                problem: "the secret is JSON but has no string field 'key' or 'secret'"
            )
        }
        return key
    }

    /// Parses a boolean variable; anything but true/false/1/0 (any case) is an error.
    static func flag(_ raw: String?, variable: String) throws(ConfigurationError) -> Bool {
        guard let raw else { return false }
        switch raw.lowercased() {
        case "true", "1": return true
        case "false", "0": return false
        default: throw ConfigurationError(variable: variable, problem: "expected 'true' or 'false', got '\(raw)'")
        }
    }
}
