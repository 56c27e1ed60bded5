import Foundation
import Logging
import PayPulseEmbedded
import PayPulsePorts
import PayPulseTestSupport
import PayPulseTransport
import Testing

/// `paypulse serve` under the login modes a real app uses, through the built CLI: the app's
/// identity provider is PyJWT's keys behind a loopback discovery document, as Cognito's or
/// Firebase's would be. Under `jwks` the functions verify its tokens; under `apigateway`
/// serve plays API Gateway's JWT authorizer and the functions read the claims it passes.
@Suite("paypulse serve and paypulse jwt under each login mode")
struct ServeAuthModesTests {
    private static let audience = "ios-app"
    private let client = CurlHTTPClient()

    /// The provider, and a token of its for `ios-dev`.
    private static func provider() throws -> (PyJWTIssuer.Server, String) {
        let server = try PyJWTIssuer.Server()
        let now = Int(Date().timeIntervalSince1970)
        let signed = try PyJWTIssuer.sign([PyJWTIssuer.Token(
            claims: ["iss": server.url, "aud": audience, "sub": "ios-dev", "email": "dev@example.com", "iat": now - 10, "exp": now + 600], alg: "ES256"
        )])
        server.publish(signed.jwks)
        return (server, signed.tokens[0])
    }

    private static func seed(_ server: LocalServerProcess) async throws -> EmbeddedDatabase {
        let database = try EmbeddedDatabase(stateDirectory: server.stateDirectory, logger: Logger(label: "seed"))
        try await EmbeddedUserDirectory(database: database, logger: Logger(label: "seed"))
            .putUser(UserRecord(userID: "ios-dev", name: "Ios Dev", email: "dev@example.com", createdOn: "2026-11-28T00:00:00Z"))
        return database
    }

    /// The provider, a token of its, and `paypulse serve --fake-google` under `mode` trusting
    /// it, with `ios-dev` in its users table.
    private static func start(mode: String) async throws -> (issuer: PyJWTIssuer.Server, token: String, server: LocalServerProcess, database: EmbeddedDatabase) {
        let (issuer, token) = try provider()
        let server = try await LocalServerProcess(
            arguments: ["--fake-google"], environment: ["PAYPULSE_AUTH_MODE": mode, "PAYPULSE_JWT_ISSUER": issuer.url, "PAYPULSE_JWT_AUDIENCE": audience]
        )
        return (issuer, token, server, try await seed(server))
    }

    @Test("under jwks with the app's own identity provider: its tokens get the profile, others 401, and the console says it cannot mint one")
    func jwksProvider() async throws {
        let (issuer, token, server, database) = try await Self.start(mode: "jwks")
        defer { issuer.stop() }
        defer { #expect((try? server.stop().status) == 0, "a clean stop on SIGTERM") }
        let profile = try await get(server.baseURL + "/v1/user/me", bearer: token)
        #expect(profile.status == 200 && profile.bodyText.contains("Ios Dev"), "\(profile.status) \(profile.bodyText)")
        #expect(try await get(server.baseURL + "/v1/user/me").status == 401)

        let notice = try await ServeRequests.consoleDisconnect("ios-dev", on: server)
        #expect(notice.contains("cannot mint") && notice.contains("PAYPULSE_AUTH_MODE=jwks"), "\(notice)")
        #expect(!server.log.contains(token.split(separator: ".")[2]), "no token in the log")
        withExtendedLifetime(database) {}
    }

    @Test("under apigateway, serve verifies as API Gateway's JWT authorizer and passes the claims: the provider's tokens get the profile, others API Gateway's 401")
    func apiGatewayAuthorizer() async throws {
        let (issuer, token, server, database) = try await Self.start(mode: "apigateway")
        defer { issuer.stop() }
        defer { #expect((try? server.stop().status) == 0, "a clean stop on SIGTERM") }
        let profile = try await get(server.baseURL + "/v1/user/me", bearer: token)
        #expect(profile.status == 200 && profile.bodyText.contains("dev@example.com"), "\(profile.status) \(profile.bodyText)")
        // API Gateway answers for the authorizer: the function never runs.
        let broken: [String?] = [nil, "not.a.token", String(token.dropLast(4)) + "AAAA"]
        for bearer in broken {
            let refused = try await get(server.baseURL + "/v1/user/me", bearer: bearer)
            #expect(refused.status == 401 && refused.bodyText == #"{"message":"Unauthorized"}"#, "\(refused.status) \(refused.bodyText)")
        }
        // Google's route has no authorizer, as in the template: its own 400 for a non-token.
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/secevent+jwt")
        let event = try await client.execute(HTTPRequest(
            method: "POST", url: server.baseURL + "/v1/google/security-events", headers: headers, body: Array("not a token".utf8)
        ))
        #expect(event.status == 400, "\(event.status)")
        let notice = try await ServeRequests.consoleDisconnect("ios-dev", on: server)
        #expect(notice.contains("cannot mint") && notice.contains("PAYPULSE_AUTH_MODE=apigateway"), "\(notice)")
        withExtendedLifetime(database) {}
    }

    @Test("paypulse jwt under jwks or apigateway says who signs the app's tokens, and how to get one here")
    func jwtNamesTheSigner() async throws {
        for (mode, signer) in [("jwks", "identity provider"), ("apigateway", "API Gateway")] {
            let minted = try await FunctionProcess.cli(["jwt", "--sub", "ios-dev"], environment: [
                "PAYPULSE_STORE": "embedded", "PAYPULSE_STATE_DIR": NSTemporaryDirectory() + "paypulse-jwt-\(UUID().uuidString)",
                "HOME": NSTemporaryDirectory(), "PAYPULSE_AUTH_MODE": mode, "PAYPULSE_JWT_ISSUER": "https://issuer.example", "PAYPULSE_JWT_AUDIENCE": Self.audience,
            ])
            #expect(minted.status != 0 && minted.stdout.isEmpty, "\(mode): \(minted.stdout)")
            #expect(minted.stderr.contains(signer) && minted.stderr.contains("paypulse serve --issuer"), "\(mode): \(minted.stderr)")
            if mode == "jwks" { #expect(!minted.stderr.contains("API Gateway"), "\(minted.stderr)") }
        }
    }

    private func get(_ url: String, bearer: String? = nil) async throws -> HTTPResponse {
        var headers = HTTPHeaders()
        if let bearer { headers.add(name: "Authorization", value: "Bearer \(bearer)") }
        return try await client.execute(HTTPRequest(method: "GET", url: url, headers: headers, timeout: .seconds(30)))
    }
}
