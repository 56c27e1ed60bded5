import Foundation
import Logging
import OpenAPIURLSession
import PayPulseClient
import PayPulseEmbedded
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// The generated Swift client, as the iOS app uses it (URLSession transport, the bearer
/// middleware), against a built `paypulse serve` with the stand-in Google knowing the
/// manifest's grants: connect, profile, a typed `missing_scope` refusal, disconnect.
@Suite("The generated client against paypulse serve")
struct GeneratedClientTests {
    @Test("connect, profile, missing_scope, disconnect")
    func endToEnd() async throws {
        let manifest = BuiltExecutables.repositoryRoot.appendingPathComponent("events/manifest.json").path
        let server = try await LocalServerProcess(arguments: ["--fake-google", "--grants", manifest])
        defer { _ = try? server.stop() }
        let database = try EmbeddedDatabase(stateDirectory: server.stateDirectory, logger: Logger(label: "seed"))
        try await EmbeddedUserDirectory(database: database, logger: Logger(label: "seed"))
            .putUser(UserRecord(userID: "user-1", name: "Jane Smith", email: "jane@example.com", createdOn: "2024-11-01T10:00:00Z"))
        let jwt = try Self.eventJWT()
        let client = Client(
            serverURL: try #require(URL(string: server.baseURL)), transport: URLSessionTransport(),
            middlewares: [BearerTokenMiddleware { jwt }]
        )

        let connected = try await client.storeGmailTokens(body: .json(.init(
            accessToken: "ya29.client-test", refreshToken: "1//0gABC-first-refresh", expiresIn: 3600,
            scope: .ScopeList(["https://www.googleapis.com/auth/gmail.readonly"]), email: "jane.smith@gmail.com"
        )))
        let created = try connected.created.body.json
        #expect(created.data.googleEmail == "jane.smith@gmail.com" && !created.data.accountSwitch)

        let profile = try await client.getUserProfile().ok.body.json
        #expect(profile.data.gmailAccountConnected && profile.data.name == "Jane Smith")

        // A form body, and a grant whose scopes at Google lack Gmail: a typed refusal.
        let refused = try await client.storeGmailTokens(body: .urlEncodedForm(.init(
            accessToken: "ya29.no-gmail", refreshToken: "1//0gABC-no-gmail-refresh", scope: "openid"
        )))
        guard case .forbidden(let forbidden) = refused else {
            Issue.record("expected 403 missing_scope, got \(refused)")
            return
        }
        #expect(try forbidden.body.json.error == .missingScope)

        let disconnected = try await client.disconnectGmail().ok.body.json
        #expect(disconnected.data.googleEmail == "jane.smith@gmail.com")
        #expect(try await client.getUserProfile().ok.body.json.data.gmailAccountConnected == false)
        guard case .notFound(let notFound) = try await client.disconnectGmail() else {
            Issue.record("a second disconnect must answer 404")
            return
        }
        #expect(try notFound.body.json.error == .notFound)

        // Without a token: the generic 401, typed.
        let anonymous = Client(serverURL: try #require(URL(string: server.baseURL)), transport: URLSessionTransport())
        #expect(try await anonymous.getUserProfile().unauthorized.body.json.error == .unauthorized)
        #expect(try await client.getHealth().ok.body.json.status == .ok)
    }

    /// The bearer token of the replay events (user-1, the development key, valid to 2100).
    private static func eventJWT() throws -> String {
        let url = BuiltExecutables.repositoryRoot.appendingPathComponent("events/user-profile/v2-connected.json")
        let event = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let header = try #require((event["headers"] as? [String: String])?["authorization"])
        return String(header.dropFirst("Bearer ".count))
    }
}
