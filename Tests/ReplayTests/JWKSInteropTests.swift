import Foundation
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// `PAYPULSE_AUTH_MODE=jwks` through the built user-profile, with tokens PyJWT signed
/// (`PyJWTIssuer`) and the JWKS on loopback: each provider's token shape with its settings,
/// discovery, a warm process fetching the keys once, and an unreachable issuer.
/// `EventReplayTests` replays every API event the same way.
@Suite("Identity providers' tokens through the built functions")
struct JWKSInteropTests {
    private static let now = Int(Date().timeIntervalSince1970)

    /// The v2 profile event of the manifest's user, its bearer token replaced.
    private static func profileEvent(bearer token: String) throws -> Data {
        let event = ReplayManifest.bytes("user-profile/v2-not-connected.json")
        let original = try #require(JWKSReplay.bearerTokens(in: event).first)
        return Data(String(decoding: event, as: UTF8.self).replacing(original, with: token).utf8)
    }

    private static func seededBackend() async throws -> ReplayBackend {
        let backend = try ReplayBackend.embedded()
        let seed = ReplayManifest.shared.user
        try await backend.users.putUser(UserRecord(userID: seed.user_id, name: seed.name, email: seed.email, createdOn: seed.created_on))
        return backend
    }

    private static func profile(_ token: String, _ environment: [String: String]) async throws -> FunctionProcess.Result {
        try await FunctionProcess.run("user-profile", event: try profileEvent(bearer: token), environment: environment)
    }

    private static func claims(_ fields: [String: any Sendable]) -> [String: any Sendable] {
        ["sub": "user-1", "iat": now - 60, "exp": now + 3600].merging(fields) { $1 }
    }

    @Test("Cognito, Firebase and a generic OIDC issuer: each accepted with its settings, refused without them")
    func providerShapes() async throws {
        let pool = "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Example1", client = "3n4b5urk1ft4fl3mg5e62d9ado"
        let firebase = "https://securetoken.google.com/paypulse-demo"
        let signed = try PyJWTIssuer.sign([
            .init(claims: Self.claims(["iss": pool, "aud": client, "token_use": "id", "auth_time": Self.now - 120, "email": "ada@example.com"]), alg: "RS256"),
            .init(claims: Self.claims(["iss": pool, "client_id": client, "token_use": "access", "scope": "openid"]), alg: "RS256"),
            .init(claims: Self.claims(["iss": firebase, "aud": "paypulse-demo", "auth_time": Self.now - 86_400, "user_id": "user-1"]), alg: "RS256"),
            .init(claims: Self.claims(["iss": firebase, "aud": "paypulse-demo", "auth_time": Self.now + 3600]), alg: "RS256"),
        ])
        let server = try signed.serve()
        defer { server.stop() }
        let backend = try await Self.seededBackend()
        defer { backend.cleanUp() }
        var environment = backend.environment
        environment["PAYPULSE_AUTH_MODE"] = "jwks"
        environment["PAYPULSE_JWT_JWKS_URL"] = server.url + "/jwks.json"

        func status(_ token: String, _ settings: [String: String]) async throws -> (Int?, String) {
            let result = try await Self.profile(token, environment.merging(settings) { $1 })
            let status = result.stdout.firstMatch(of: /"statusCode":(\d+)/).flatMap { Int($0.1) }
            return (status, result.stdout + result.stderr.suffix(600))
        }
        let cognito = ["PAYPULSE_JWT_ISSUER": pool, "PAYPULSE_JWT_AUDIENCE": client]
        let idToken = try await status(signed.tokens[0], cognito)
        #expect(idToken.0 == 200, "Cognito ID token: \(idToken.1)")
        #expect(try await status(signed.tokens[1], cognito).0 == 200, "Cognito access token")
        let accessOnly = cognito.merging(["PAYPULSE_JWT_TOKEN_USE": "access"]) { $1 }
        #expect(try await status(signed.tokens[1], accessOnly).0 == 200)
        #expect(try await status(signed.tokens[0], accessOnly).0 == 401, "an ID token where access tokens are required")
        #expect(try await status(signed.tokens[1], ["PAYPULSE_JWT_ISSUER": pool, "PAYPULSE_JWT_AUDIENCE": "another-client"]).0 == 401)

        let project = ["PAYPULSE_JWT_ISSUER": firebase, "PAYPULSE_JWT_AUDIENCE": "paypulse-demo"]
        #expect(try await status(signed.tokens[2], project).0 == 200, "Firebase ID token")
        #expect(try await status(signed.tokens[3], project).0 == 401, "auth_time in the future")
        #expect(try await status(signed.tokens[2], cognito).0 == 401, "another issuer's token under the same keys")
    }

    @Test("discovery: PAYPULSE_JWT_ISSUER alone finds the keys; a warm process fetches them once; HS256 is refused")
    func discoveryAndWarmReuse() async throws {
        // The issuer is the server itself, so its URL is in the claims: it listens first.
        let issuerServer = try PyJWTIssuer.Server()
        defer { issuerServer.stop() }
        let signed = try PyJWTIssuer.sign([.init(claims: Self.claims(["iss": issuerServer.url, "aud": "paypulse-ios"]), alg: "ES256", typ: "at+jwt")])
        issuerServer.publish(signed.jwks)
        let backend = try await Self.seededBackend()
        defer { backend.cleanUp() }
        var environment = backend.environment
        environment.merge(["PAYPULSE_AUTH_MODE": "jwks", "PAYPULSE_JWT_ISSUER": issuerServer.url, "PAYPULSE_JWT_AUDIENCE": "paypulse-ios"]) { $1 }
        let event = try Self.profileEvent(bearer: signed.tokens[0])
        let run = try await LambdaLoopRun.run("user-profile", events: [event, event, event], environment: environment)
        #expect(run.posted.count == 3 && run.posted.allSatisfy { $0.contains(#""statusCode":200"#) }, "\(run.posted) \(run.stderr.suffix(800))")
        #expect(issuerServer.requests.map(\.target) == ["/.well-known/openid-configuration", "/jwks.json"], "one discovery and one key fetch for three invocations")

        let hs256 = try #require(JWKSReplay.bearerTokens(in: ReplayManifest.bytes("user-profile/v2-not-connected.json")).first)
        let refused = try await Self.profile(hs256, environment)
        #expect(refused.stdout.contains(#""statusCode":401"#), "\(refused.stdout)")
    }

    @Test("an issuer where nothing listens: 503 upstream_unavailable, never 401 or 500")
    func unreachableIssuer() async throws {
        let signed = try PyJWTIssuer.sign([.init(claims: Self.claims(["iss": "https://issuer.example", "aud": "paypulse-ios"]), alg: "RS256")])
        let backend = try await Self.seededBackend()
        defer { backend.cleanUp() }
        var environment = backend.environment
        environment.merge([
            "PAYPULSE_AUTH_MODE": "jwks", "PAYPULSE_JWT_ISSUER": "https://issuer.example", "PAYPULSE_JWT_AUDIENCE": "paypulse-ios",
            "PAYPULSE_JWT_JWKS_URL": "http://127.0.0.1:\(try RefusingLoopbackPort.make())/jwks.json",
        ]) { $1 }
        let result = try await Self.profile(signed.tokens[0], environment)
        #expect(result.stdout.contains(#""statusCode":503"#) && result.stdout.contains("upstream_unavailable"), "\(result.stdout)")
        #expect(result.stderr.contains("issuer keys unavailable"), "the reason is logged for operators")
    }
}
