import PayPulseApp
import PayPulseDomain
import PayPulseIssuerKeys
import Testing

@Suite("AuthSettings")
struct AuthSettingsTests {
    private static let goodKey = AuthFixture.key
    private static let noSecret: @Sendable (String) async throws -> String = { id in
        Issue.record("loadSecret called for \(id)")
        return ""
    }

    private func load(_ environment: [String: String], insideLambda: Bool = false,
                      loadSecret: @Sendable (String) async throws -> String = noSecret) async throws -> AuthSettings {
        try await JWTConfiguration.fromEnvironment(environment, insideLambda: insideLambda).authSettings(loadSecret: loadSecret)
    }

    /// Runs `body`, expects ``InvalidAuthSettings`` naming `setting`, and checks that
    /// `secret` (when given) is not in its message.
    private func expectInvalid(
        _ setting: InvalidAuthSettings.Setting, notContaining secret: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () throws -> AuthSettings
    ) {
        do {
            _ = try body()
            Issue.record("no error", sourceLocation: sourceLocation)
        } catch let error as InvalidAuthSettings {
            #expect(error.setting == setting, sourceLocation: sourceLocation)
            #expect(error.description == "invalid JWT settings: \(setting.rawValue): \(error.problem)", sourceLocation: sourceLocation)
            if let secret {
                #expect(!error.description.contains(secret), sourceLocation: sourceLocation)
            }
        } catch {
            Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
        }
    }

    /// Runs `body`, expects an ``ConfigurationError`` naming `variable`, and checks that
    /// `secret` (when given) is not in its message.
    private func expectConfigurationError(
        _ variable: String, notContaining secret: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () async throws -> AuthSettings
    ) async {
        do {
            _ = try await body()
            Issue.record("no error", sourceLocation: sourceLocation)
        } catch let error as ConfigurationError {
            #expect(error.variable == variable, sourceLocation: sourceLocation)
            #expect(error.description == "configuration error: \(variable): \(error.problem)", sourceLocation: sourceLocation)
            if let secret {
                #expect(!error.description.contains(secret), sourceLocation: sourceLocation)
            }
        } catch {
            Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test("the development key is documented and long enough")
    func developmentKey() {
        #expect(AuthSettings.developmentKey == "paypulse-local-development-jwt-key-do-not-deploy")
        #expect(AuthSettings.developmentKey.utf8.count >= 32)
    }

    @Test("init defaults")
    func initDefaults() throws {
        let settings = try AuthSettings(key: Array(Self.goodKey.utf8))
        #expect(settings.issuer == "paypulse")
        #expect(settings.audience == "paypulse-api")
        #expect(settings.mode == .hs256)
        #expect(settings.leeway == 60)
        #expect(settings.usesDevelopmentKey == false)
    }

    @Test("init refuses a key under 32 bytes, naming the setting, without echoing the key")
    func shortKey() {
        let short = "short-key-0123456789-abcdefghij"  // 31 bytes
        #expect(short.utf8.count == 31)
        expectInvalid(.key, notContaining: short) { try AuthSettings(key: Array(short.utf8)) }
        expectInvalid(.key) { try AuthSettings(key: []) }
        #expect(throws: Never.self) { try AuthSettings(key: Array(repeating: 7, count: 32)) }
    }

    @Test("init refuses a leeway over 60 s or an empty issuer or audience")
    func badValues() {
        expectInvalid(.leeway) { try AuthSettings(key: Array(Self.goodKey.utf8), leeway: 61) }
        expectInvalid(.leeway) { try AuthSettings(key: Array(Self.goodKey.utf8), leeway: -1) }
        expectInvalid(.issuer) { try AuthSettings(key: Array(Self.goodKey.utf8), issuer: "") }
        expectInvalid(.audience) { try AuthSettings(key: Array(Self.goodKey.utf8), audience: "") }
    }

    @Test("environment defaults outside Lambda: the development key, flagged")
    func environmentDefaults() async throws {
        let settings = try await load([:])
        #expect(settings.keys == [Array(AuthSettings.developmentKey.utf8)])
        #expect(settings.usesDevelopmentKey)
        #expect(settings.issuer == "paypulse")
        #expect(settings.audience == "paypulse-api")
        #expect(settings.mode == .hs256)
        #expect(settings.leeway == 60)
    }

    @Test("environment values are read")
    func environmentValues() async throws {
        let settings = try await load([
            "PAYPULSE_JWT_SECRET": Self.goodKey,
            "PAYPULSE_JWT_ISSUER": "issuer-x",
            "PAYPULSE_JWT_AUDIENCE": "audience-y",
            "PAYPULSE_AUTH_MODE": "HS256",
        ], insideLambda: true)
        #expect(settings.keys == [Array(Self.goodKey.utf8)])
        #expect(settings.usesDevelopmentKey == false)
        #expect(settings.issuer == "issuer-x")
        #expect(settings.audience == "audience-y")
        #expect(settings.mode == .hs256)
    }

    @Test("apigateway mode holds no key, reads no secret, and works inside Lambda without one")
    func apiGatewayMode() async throws {
        let settings = try await load(["PAYPULSE_AUTH_MODE": "apigateway"], insideLambda: true)
        #expect(settings.mode == .apigateway)
        #expect(settings.keys.isEmpty)
        #expect(throws: InvalidAuthSettings.self) { try DevelopmentTokenMinter(settings: settings) }
    }

    @Test("apigateway mode with a key configured names the key's variable: nothing would use it")
    func apiGatewayModeWithKey() async {
        await expectConfigurationError("PAYPULSE_JWT_SECRET", notContaining: Self.goodKey) {
            try await load(["PAYPULSE_AUTH_MODE": "apigateway", "PAYPULSE_JWT_SECRET": Self.goodKey])
        }
        await expectConfigurationError("PAYPULSE_JWT_SECRET_ID") {
            try await load(["PAYPULSE_AUTH_MODE": "apigateway", "PAYPULSE_JWT_SECRET_ID": "paypulse/jwt"])
        }
    }

    private static let jwks = [
        "PAYPULSE_AUTH_MODE": "jwks", "PAYPULSE_JWT_ISSUER": "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Example1",
        "PAYPULSE_JWT_AUDIENCE": "3n4b5urk1ft4fl3mg5e62d9ado",
    ]

    private func keyLocation(_ environment: [String: String]) throws -> HTTPIssuerKeySource.Location? {
        try JWTConfiguration.fromEnvironment(environment, insideLambda: true).issuerKeyLocation()
    }

    @Test("jwks mode: no key, no secret read, works inside Lambda; the keys are found through discovery or at the URL given")
    func issuerKeyMode() async throws {
        let settings = try await load(Self.jwks, insideLambda: true)
        #expect(settings.mode == .jwks && settings.keys.isEmpty && settings.tokenUse == nil)
        #expect(settings.issuer == Self.jwks["PAYPULSE_JWT_ISSUER"] && settings.audience == Self.jwks["PAYPULSE_JWT_AUDIENCE"])
        #expect(throws: InvalidAuthSettings.self) { try DevelopmentTokenMinter(settings: settings) }
        #expect(try keyLocation(Self.jwks) == .discovery(issuer: "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Example1"))
        let given = Self.jwks.merging(["PAYPULSE_JWT_JWKS_URL": "http://127.0.0.1:8123/.well-known/jwks.json", "PAYPULSE_JWT_TOKEN_USE": "access"]) { $1 }
        #expect(try keyLocation(given) == .keySet("http://127.0.0.1:8123/.well-known/jwks.json"))
        #expect(try await load(given).tokenUse == "access")
        #expect(try keyLocation(["PAYPULSE_AUTH_MODE": "hs256"]) == nil)
    }

    @Test("jwks mode names what is missing or wrong: issuer, audience, a key variable, a URL that is not HTTPS")
    func issuerKeyModeErrors() async {
        for variable in ["PAYPULSE_JWT_ISSUER", "PAYPULSE_JWT_AUDIENCE"] {
            await expectConfigurationError(variable) { try await load(Self.jwks.filter { $0.key != variable }) }
        }
        for variable in ["PAYPULSE_JWT_SECRET", "PAYPULSE_JWT_SECRET_ID"] {
            await expectConfigurationError(variable, notContaining: Self.goodKey) { try await load(Self.jwks.merging([variable: Self.goodKey]) { $1 }) }
        }
        for url in ["http://issuer.example.com/jwks.json", "ftp://127.0.0.1/jwks", "http://127.0.0.1.attacker.example/jwks", "http://user@127.0.0.1/x", "https://"] {
            await expectConfigurationError("PAYPULSE_JWT_JWKS_URL") { try await load(Self.jwks.merging(["PAYPULSE_JWT_JWKS_URL": url]) { $1 }) }
        }
        await expectConfigurationError("PAYPULSE_JWT_ISSUER") { try await load(Self.jwks.merging(["PAYPULSE_JWT_ISSUER": "http://issuer.example.com"]) { $1 }) }
        // An empty variable is unset, as everywhere; the domain refuses an empty token use itself.
        expectInvalid(.tokenUse) { try AuthSettings.issuerKeys(issuer: "https://issuer.example", audience: "app", tokenUse: "") }
        // The jwks companions under another mode would be silently ignored: refused instead.
        for (variable, value) in [("PAYPULSE_JWT_JWKS_URL", "https://issuer.example.com/jwks.json"), ("PAYPULSE_JWT_TOKEN_USE", "id")] {
            for mode in ["hs256", "apigateway"] {
                await expectConfigurationError(variable) { try await load(["PAYPULSE_AUTH_MODE": mode, variable: value]) }
            }
        }
    }

    @Test("serve --issuer's overrides: jwks under the local issuer, the environment's audience kept, its key and token use set aside")
    func localIssuerOverrides() async throws {
        let local = "http://127.0.0.1:8080", keySet = "http://127.0.0.1:8080/.well-known/jwks.json"
        let developer = ["PAYPULSE_JWT_SECRET": Self.goodKey, "PAYPULSE_JWT_TOKEN_USE": "id", "PAYPULSE_JWT_AUDIENCE": "my-ios-app"]
        for (environment, audience) in [(developer, "my-ios-app"), ([:], AuthSettings.defaultAudience)] {
            let overrides = JWTConfiguration.fromEnvironment(environment, insideLambda: false).localIssuerOverrides(issuer: local, keySetURL: keySet)
            let merged = environment.merging(overrides) { $1 }
            let settings = try await load(merged)
            #expect(settings.mode == .jwks && settings.issuer == local && settings.audience == audience && settings.tokenUse == nil)
            #expect(try keyLocation(merged) == .keySet(keySet))
        }
    }

    @Test("an unknown mode, and the retired trust flag, name their variables", arguments: ["jwt", "jwks ", "hs512", "api-gateway"])
    func badMode(mode: String) async {
        await expectConfigurationError("PAYPULSE_AUTH_MODE") { try await load(["PAYPULSE_AUTH_MODE": mode]) }
        for value in ["true", "false"] {
            await expectConfigurationError("PAYPULSE_TRUST_API_GATEWAY_AUTHORIZER") {
                try await load(["PAYPULSE_TRUST_API_GATEWAY_AUTHORIZER": value])
            }
        }
    }

    @Test("a short PAYPULSE_JWT_SECRET names the variable")
    func shortEnvironmentKey() async {
        await expectConfigurationError("PAYPULSE_JWT_SECRET", notContaining: "too-short-key") {
            try await load(["PAYPULSE_JWT_SECRET": "too-short-key"])
        }
    }

    @Test("inside Lambda a missing key is an error")
    func lambdaMissingKey() async {
        await expectConfigurationError("PAYPULSE_JWT_SECRET") { try await load([:], insideLambda: true) }
        await expectConfigurationError("PAYPULSE_JWT_SECRET") { try await load(["PAYPULSE_JWT_SECRET": "  "], insideLambda: true) }
    }

    @Test("inside Lambda the development key is an error, from either source")
    func lambdaDevelopmentKey() async {
        await expectConfigurationError("PAYPULSE_JWT_SECRET", notContaining: AuthSettings.developmentKey) {
            try await load(["PAYPULSE_JWT_SECRET": AuthSettings.developmentKey], insideLambda: true)
        }
        await expectConfigurationError("PAYPULSE_JWT_SECRET_ID", notContaining: AuthSettings.developmentKey) {
            try await load(["PAYPULSE_JWT_SECRET_ID": "paypulse/jwt"], insideLambda: true) { _ in AuthSettings.developmentKey }
        }
    }

    @Test("PAYPULSE_JWT_SECRET_ID loads a plain key through the given reader")
    func secretIDPlain() async throws {
        let settings = try await load(["PAYPULSE_JWT_SECRET_ID": "paypulse/jwt"], insideLambda: true) { id in
            #expect(id == "paypulse/jwt")
            return Self.goodKey
        }
        #expect(settings.keys == [Array(Self.goodKey.utf8)])
    }

    @Test("PAYPULSE_JWT_SECRET_ID loads JSON {key} or {secret}", arguments: ["key", "secret"])
    func secretIDJSON(field: String) async throws {
        let settings = try await load(["PAYPULSE_JWT_SECRET_ID": "paypulse/jwt"], insideLambda: true) { _ in
            #"{"\#(field)": "\#(Self.goodKey)"}"#
        }
        #expect(settings.keys == [Array(Self.goodKey.utf8)])
    }

    @Test("PAYPULSE_JWT_SECRET_ID loads a rotation's {keys}: the first signs, every one is checked")
    func secretIDKeyList() async throws {
        let old = String(Self.goodKey.reversed())
        let settings = try await load(["PAYPULSE_JWT_SECRET_ID": "paypulse/jwt"], insideLambda: true) { _ in
            #"{"keys": ["\#(Self.goodKey)", "\#(old)"]}"#
        }
        #expect(settings.keys == [Array(Self.goodKey.utf8), Array(old.utf8)])
        #expect(settings.signingKey == Array(Self.goodKey.utf8))
        let fiveKeys = Array(repeating: "\"" + Self.goodKey + "\"", count: 5).joined(separator: ",")
        for bad in [
            #"{"keys": []}"#, #"{"keys": ["\#(Self.goodKey)", "short-old-key"]}"#, #"{"keys": "\#(Self.goodKey)"}"#,
            #"{"key": "\#(Self.goodKey)", "keys": ["\#(old)"]}"#, #"{"keys": ["\#(Self.goodKey)", "\#(AuthSettings.developmentKey)"]}"#,
            #"{"keys": [\#(fiveKeys)]}"#,
        ] {
            await expectConfigurationError("PAYPULSE_JWT_SECRET_ID", notContaining: Self.goodKey) {
                try await load(["PAYPULSE_JWT_SECRET_ID": "paypulse/jwt"], insideLambda: true) { _ in bad }
            }
        }
    }

    @Test("PAYPULSE_JWT_SECRET_ID failures name that variable")
    func secretIDFailures() async {
        struct Unreachable: Error {}
        await expectConfigurationError("PAYPULSE_JWT_SECRET_ID") {
            try await load(["PAYPULSE_JWT_SECRET_ID": "paypulse/jwt"]) { _ in throw Unreachable() }
        }
        await expectConfigurationError("PAYPULSE_JWT_SECRET_ID") {
            try await load(["PAYPULSE_JWT_SECRET_ID": "paypulse/jwt"]) { _ in #"{"other": "x"}"# }
        }
        await expectConfigurationError("PAYPULSE_JWT_SECRET_ID", notContaining: "short-secret") {
            try await load(["PAYPULSE_JWT_SECRET_ID": "paypulse/jwt"]) { _ in #"{"key": "short-secret"}"# }
        }
        await expectConfigurationError("PAYPULSE_JWT_SECRET_ID") {
            try await load(["PAYPULSE_JWT_SECRET": Self.goodKey, "PAYPULSE_JWT_SECRET_ID": "paypulse/jwt"])
        }
    }

    @Test("a key list refuses no key, more than four, or a short one, naming which")
    func keyListLimits() {
        expectInvalid(.key) { try AuthSettings(keys: []) }
        expectInvalid(.key) { try AuthSettings(keys: Array(repeating: Array(Self.goodKey.utf8), count: 5)) }
        expectInvalid(.key, notContaining: "short") { try AuthSettings(keys: [Array(Self.goodKey.utf8), Array("short".utf8)]) }
        #expect(throws: Never.self) { try AuthSettings(keys: Array(repeating: Array(Self.goodKey.utf8), count: 4)) }
    }
}
