#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseDomain
import PayPulseIssuerKeys

/// How API requests are authenticated, as the environment says.
///
/// - `PAYPULSE_AUTH_MODE`: `hs256` (the default) verifies the `Authorization` header's
///   HS256 token here; `jwks` verifies an identity provider's RS256 / ES256 token under the
///   keys it publishes; `apigateway` takes the claims API Gateway's JWT authorizer verified,
///   holds no key, and refuses an event without them.
/// - `PAYPULSE_JWT_SECRET`: the HS256 key string, at least 32 bytes.
/// - `PAYPULSE_JWT_SECRET_ID`: instead, the secret that holds the key, as a plain string,
///   as JSON `{"key": "..."}` / `{"secret": "..."}`, or, while a key rotates, as
///   `{"keys": ["new", "old"]}` (the first signs, any verifies); read at start by
///   ``authSettings(loadSecret:)``.
/// - `PAYPULSE_JWT_ISSUER` (default `paypulse`), `PAYPULSE_JWT_AUDIENCE` (default `paypulse-api`).
///   Under `jwks` both are required (a provider's issuer is never `paypulse`), and:
///   - `PAYPULSE_JWT_JWKS_URL`: the key set's URL; when unset, it is found through
///     `{PAYPULSE_JWT_ISSUER}/.well-known/openid-configuration`. HTTPS, or `http://` to a
///     loopback host.
///   - `PAYPULSE_JWT_TOKEN_USE`: the `token_use` required (Cognito: `id` or `access`), if set.
///
/// Outside Lambda, with neither key variable set, the public development key is used (the
/// caller warns). Inside Lambda a missing key or the development key is an error.
package struct JWTConfiguration: Sendable, Equatable {
    /// `PAYPULSE_AUTH_MODE` as set, checked when the settings are made.
    package let mode: String?
    /// `PAYPULSE_JWT_SECRET`, if set.
    package let secret: String?
    /// `PAYPULSE_JWT_SECRET_ID`, if set.
    package let secretID: String?
    /// The required `iss`.
    package let issuer: String
    /// The value `aud` must contain.
    package let audience: String
    /// `PAYPULSE_JWT_ISSUER` and `PAYPULSE_JWT_AUDIENCE` as set (`jwks` has no defaults).
    let issuerSet: String?, audienceSet: String?
    /// `PAYPULSE_JWT_JWKS_URL`, if set.
    package let jwksURL: String?
    /// `PAYPULSE_JWT_TOKEN_USE`, if set.
    package let tokenUse: String?
    /// The retired `PAYPULSE_TRUST_API_GATEWAY_AUTHORIZER`, if still set: refused, so a
    /// deployment that relied on it learns of `PAYPULSE_AUTH_MODE` instead of silently
    /// verifying differently.
    package let retiredTrustVariable: String?
    /// Whether the process runs in Lambda, where the development key is refused.
    package let insideLambda: Bool

    package static let modeVariable = "PAYPULSE_AUTH_MODE"
    static let secretVariable = "PAYPULSE_JWT_SECRET"
    static let secretIDVariable = "PAYPULSE_JWT_SECRET_ID"
    static let retiredTrustVariableName = "PAYPULSE_TRUST_API_GATEWAY_AUTHORIZER"
    static let issuerVariable = "PAYPULSE_JWT_ISSUER"
    static let audienceVariable = "PAYPULSE_JWT_AUDIENCE"
    static let jwksURLVariable = "PAYPULSE_JWT_JWKS_URL"
    static let tokenUseVariable = "PAYPULSE_JWT_TOKEN_USE"

    /// Reads the variables. They are checked only by ``authSettings(loadSecret:)``: a
    /// function that serves no API route (token-refresh) needs no key and is not refused
    /// for a missing or bad one.
    init(_ reader: EnvironmentReader, insideLambda: Bool) {
        mode = reader.value(Self.modeVariable)
        secret = reader.value(Self.secretVariable)
        secretID = reader.value(Self.secretIDVariable)
        issuerSet = reader.value(Self.issuerVariable)
        audienceSet = reader.value(Self.audienceVariable)
        issuer = issuerSet ?? AuthSettings.defaultIssuer
        audience = audienceSet ?? AuthSettings.defaultAudience
        jwksURL = reader.value(Self.jwksURLVariable)
        tokenUse = reader.value(Self.tokenUseVariable)
        retiredTrustVariable = reader.value(Self.retiredTrustVariableName)
        self.insideLambda = insideLambda
    }

    /// Reads the JWT variables of `environment` alone.
    package static func fromEnvironment(_ environment: [String: String], insideLambda: Bool) -> JWTConfiguration {
        JWTConfiguration(EnvironmentReader(variables: environment), insideLambda: insideLambda)
    }

    /// The variables that point the API functions at a local issuer (`paypulse serve
    /// --issuer`): `jwks` mode, that issuer and its key set, and this configuration's
    /// audience (`PAYPULSE_JWT_AUDIENCE` or the default). The flag replaces the environment's
    /// verification, so a shared key and a required `token_use` are blanked (read as unset).
    /// - Parameters:
    ///   - issuer: The local issuer's URL, the `iss` required.
    ///   - keySetURL: Where it publishes its keys.
    /// - Returns: Values for ``AppConfiguration/read(overrides:defaultLogLevel:)``.
    package func localIssuerOverrides(issuer: String, keySetURL: String) -> [String: String] {
        [
            Self.modeVariable: AuthSettings.Mode.jwks.rawValue, Self.issuerVariable: issuer, Self.jwksURLVariable: keySetURL,
            Self.audienceVariable: audience, Self.secretVariable: "", Self.secretIDVariable: "", Self.tokenUseVariable: "",
        ]
    }

    /// The authentication mode the environment names.
    /// - Throws: ``ConfigurationError`` for an unknown mode or the retired trust variable.
    package func authMode() throws(ConfigurationError) -> AuthSettings.Mode {
        if retiredTrustVariable != nil {
            throw ConfigurationError(
                variable: Self.retiredTrustVariableName,
                problem: "is replaced by \(Self.modeVariable) (apigateway: trust API Gateway's JWT authorizer; hs256: verify the header); remove it"
            )
        }
        guard let mode else { return .hs256 }
        guard let known = AuthSettings.Mode(rawValue: mode.lowercased()) else {
            let modes = AuthSettings.Mode.allCases.map(\.rawValue).joined(separator: " or ")
            throw ConfigurationError(variable: Self.modeVariable, problem: "must be \(modes), got '\(mode)'")
        }
        return known
    }

    /// The settings the authenticator uses, reading the key's secret when one is named.
    /// Outside Lambda, with neither key variable set, the development key is used.
    /// - Parameter loadSecret: Reads a secret's string value by id; called only when
    ///   `PAYPULSE_JWT_SECRET_ID` is set under `hs256`.
    /// - Throws: ``ConfigurationError`` naming the variable at fault; never the key.
    package func authSettings(loadSecret: @Sendable (String) async throws -> String) async throws(ConfigurationError) -> AuthSettings {
        let mode = try authMode()
        if mode != .jwks, let variable = [(Self.jwksURLVariable, jwksURL), (Self.tokenUseVariable, tokenUse)].first(where: { $0.1 != nil })?.0 {
            throw ConfigurationError(variable: variable, problem: "is used only when \(Self.modeVariable)=jwks; remove it")
        }
        if mode != .hs256 {
            // A key here would suggest the functions still verify something with it.
            if let variable = secret != nil ? Self.secretVariable : secretID != nil ? Self.secretIDVariable : nil {
                throw ConfigurationError(variable: variable, problem: "is not used when \(Self.modeVariable)=\(mode.rawValue) (\(mode == .jwks ? "the issuer's published keys verify" : "API Gateway's authorizer verifies") the token); remove it")
            }
        }
        switch mode {
        case .apigateway: return .apiGatewayAuthorizer
        case .jwks: return try issuerKeySettings()
        case .hs256: return try await sharedKeySettings(loadSecret: loadSecret)
        }
    }

    /// Where the issuer's keys are fetched under `jwks`, or `nil` under another mode.
    /// - Throws: ``ConfigurationError`` for a URL that is not HTTPS (or loopback HTTP).
    package func issuerKeyLocation() throws(ConfigurationError) -> HTTPIssuerKeySource.Location? {
        guard try authMode() == .jwks else { return nil }
        if let jwksURL {
            guard HTTPIssuerKeySource.isAllowed(url: jwksURL) else {
                throw ConfigurationError(variable: Self.jwksURLVariable, problem: "must be an https:// URL (http:// only to a loopback host), got '\(jwksURL)'")
            }
            return .keySet(jwksURL)
        }
        guard HTTPIssuerKeySource.isAllowed(url: issuer) else {
            throw ConfigurationError(
                variable: Self.issuerVariable, problem: "must be an https:// URL to find the keys through discovery (or set \(Self.jwksURLVariable)), got '\(issuer)'"
            )
        }
        return .discovery(issuer: issuer)
    }

    private func issuerKeySettings() throws(ConfigurationError) -> AuthSettings {
        guard issuerSet != nil else { throw ConfigurationError(variable: Self.issuerVariable, problem: "required when \(Self.modeVariable)=jwks (the identity provider's iss)") }
        guard audienceSet != nil else {
            throw ConfigurationError(variable: Self.audienceVariable, problem: "required when \(Self.modeVariable)=jwks (the app's client or project id)")
        }
        _ = try issuerKeyLocation()
        do {
            return try AuthSettings.issuerKeys(issuer: issuer, audience: audience, tokenUse: tokenUse)
        } catch {
            throw Self.configurationError(error, keyVariable: Self.jwksURLVariable)
        }
    }

    private func sharedKeySettings(loadSecret: @Sendable (String) async throws -> String) async throws(ConfigurationError) -> AuthSettings {
        let keys: [String], variable: String
        switch (secret, secretID) {
        case (.some, .some):
            // Two sources would leave it unclear which key signs and which verifies.
            throw ConfigurationError(variable: Self.secretIDVariable, problem: "set either \(Self.secretVariable) or \(Self.secretIDVariable), not both")
        case (.some(let inline), nil):
            (keys, variable) = ([inline], Self.secretVariable)
        case (nil, .some(let id)):
            let stored: String
            do {
                stored = try await loadSecret(id)
            } catch {
                throw ConfigurationError(variable: Self.secretIDVariable, problem: "could not read secret '\(id)': \(error)")
            }
            (keys, variable) = (try Self.keys(fromSecretValue: stored), Self.secretIDVariable)
        case (nil, nil):
            guard !insideLambda else {
                throw ConfigurationError(variable: Self.secretVariable, problem: "required inside Lambda (or set \(Self.secretIDVariable))")
            }
            (keys, variable) = ([AuthSettings.developmentKey], Self.secretVariable)
        }
        if insideLambda, keys.contains(AuthSettings.developmentKey) {
            throw ConfigurationError(variable: variable, problem: "the documented development key must not be used inside Lambda")
        }
        do {
            return try AuthSettings(keys: keys.map { Array($0.utf8) }, issuer: issuer, audience: audience)
        } catch {
            throw Self.configurationError(error, keyVariable: variable)
        }
    }

    /// The variable behind a setting the domain refused.
    private static func configurationError(_ error: InvalidAuthSettings, keyVariable: String) -> ConfigurationError {
        let variable =
            switch error.setting {
            case .key: keyVariable
            case .issuer: issuerVariable
            case .audience: audienceVariable
            case .tokenUse: tokenUseVariable
            case .leeway: "leeway"
            }
        return ConfigurationError(variable: variable, problem: error.problem)
    }

    /// A secret value is the key itself, a JSON object holding it under `key` or `secret`,
    /// or one holding a list under `keys` (the first signs).
    static func keys(fromSecretValue stored: String) throws(ConfigurationError) -> [String] {
        guard stored.first(where: { !$0.isWhitespace }) == "{" else { return [stored] }
        struct Wrapped: Decodable {
            var key: String?
            var secret: String?
            var keys: [String]?
        }
        guard let wrapped = try? JSONDecoder().decode(Wrapped.self, from: Data(stored.utf8)) else {
            throw ConfigurationError(variable: secretIDVariable, problem: "the secret is JSON but not an object with a string 'key' or 'secret' or a list 'keys'")
        }
        switch (wrapped.key ?? wrapped.secret, wrapped.keys) {
        case (.some(let key), nil): return [key]
        case (nil, .some(let keys)): return keys
        case (.some, .some):
            throw ConfigurationError(variable: secretIDVariable, problem: "the secret holds both 'key' and 'keys'; keep only 'keys' while rotating")
        case (nil, nil):
            throw ConfigurationError(variable: secretIDVariable, problem: "the secret is JSON but has no string field 'key' or 'secret' and no list 'keys'")
        }
    }
}

extension JWTConfiguration: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The settings without the key: which source is set, never its value.
    package var description: String {
        "JWTConfiguration(mode: \(mode ?? "unset"), secret: \(secret == nil ? "unset" : "set"), secretID: \(secretID ?? "unset"), issuer: \(issuer), "
            + "audience: \(audience), jwksURL: \(jwksURL ?? "unset"), tokenUse: \(tokenUse ?? "unset"), insideLambda: \(insideLambda))"
    }

    /// The same as ``description``: a debugger or a test failure never shows the key.
    package var debugDescription: String { description }

    /// A mirror without the key, so `dump` and reflection cannot print it either.
    package var customMirror: Mirror {
        Mirror(self, children: ["mode": mode as Any, "secret": secret == nil ? "unset" : "[redacted]", "secretID": secretID as Any, "issuer": issuer, "audience": audience, "jwksURL": jwksURL as Any, "tokenUse": tokenUse as Any])
    }
}
