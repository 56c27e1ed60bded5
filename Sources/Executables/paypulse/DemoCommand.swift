#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ArgumentParser
import PayPulseApp
import PayPulseCoding
import PayPulseDomain
import PayPulseFakeGoogle
import PayPulseHandlers
import PayPulseLocalServer
import PayPulsePorts
import PayPulseRuntime

/// `paypulse demo`: the main job end to end on the configured store (the embedded one on a
/// fresh clone): a user signs in, the app posts Gmail tokens to store-tokens, which proves
/// the refresh token at Google and stores Google's word on the account, and the profile
/// then says Gmail is connected. Each event goes through the same runtime and handlers the
/// function executables use. Google is the local stand-in on a loopback port (the tests'
/// fake), so the demo needs no network and no Google account.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo", abstract: "Store a Gmail token set and read the profile, printing each response."
    )

    @Option(help: "The demo user's id.") var userID = "demo-user"

    /// The account the demo's grant belongs to at the stand-in Google.
    static let googleAccount = FakeGoogleAccount(subject: "108234567890123456789", email: "jane.smith@gmail.com")
    static let refreshToken = "1//demo-refresh-token"

    func run() async throws {
        let probe = try await CLIContext.load()
        // The client ID already stored (a developer's own), else the local one, stored.
        let clients = try await LocalClientID.ensure(in: probe.backends.secrets, secretID: probe.configuration.google.clientIDSecretID)
        let google = try FakeGoogleServer(clientIDs: clients.ids)
        defer { google.stop() }
        google.addGrant(
            refreshToken: Self.refreshToken,
            scope: "openid https://www.googleapis.com/auth/userinfo.email https://www.googleapis.com/auth/gmail.readonly",
            account: Self.googleAccount
        )
        let context = try await CLIContext.load(overrides: [
            "GOOGLE_TOKEN_ENDPOINT": google.tokenEndpoint, "GOOGLE_REVOKE_ENDPOINT": google.revokeEndpoint,
        ])
        let app = context.app
        print("store: \(context.storeDescription)")
        print("google: a local stand-in at \(google.tokenEndpoint) (no network), client \(clients.defaultID)")
        try await app.backends().users.putUser(
            UserRecord(userID: userID, name: "Jane Smith", email: "jane@example.com", createdOn: "2024-11-01T10:00:00Z")
        )
        let now = Date()
        let jwt = try DevelopmentTokenMinter(settings: await context.authSettings).mint(
            subject: userID, name: "Jane Smith", email: "jane@example.com", issuedAt: now, expiresAt: now.addingTimeInterval(600)
        )

        // What the app posts after Google Sign-In; store-tokens trusts only the tokens in it.
        let tokens = """
            {"access_token":"ya29.demo-access-token","refresh_token":"\(Self.refreshToken)","expires_in":3600,\
            "scope":["https://www.googleapis.com/auth/gmail.readonly","https://www.googleapis.com/auth/userinfo.email"],\
            "email":"jane.smith@gmail.com"}
            """
        let stored = try await invoke(app, .storeTokens, SampleHTTPEvent(method: "POST", path: "/v1/auth/gmail-tokens", bearer: jwt, jsonBody: tokens))
        let profile = try await invoke(app, .userProfile, SampleHTTPEvent(method: "GET", path: "/v1/user/me", bearer: jwt, jsonBody: nil))
        guard stored == 201, profile == 200 else { throw ExitCode.failure }
        if let set = try await TokenVault(grants: app.backends().grants).current(of: UserID(userID)!)?.tokenSet {
            print("\nstored: \(set.googleEmail ?? "?") (Google sub \(set.googleSubject ?? "?")), verified: \(set.verified), \(set)")
        }
    }

    /// Runs one event through a function's handlers and prints the answer.
    private func invoke(_ app: Assembly, _ name: HandlerName, _ event: SampleHTTPEvent) async throws -> Int {
        let handlers = try await app.eventHandlers(for: name)
        let result = await StdinRunner.process(input: try event.encoded(), logger: app.logger, handler: handlers)
        let reply = try JSONDecoder().decode(Reply.self, from: Data(result.output))
        print("\n\(event.method) \(event.rawPath)  (\(name.rawValue))  ->  HTTP \(reply.statusCode)")
        if let body = try? JSONDecoder().decode(JSONValue.self, from: Data(reply.body.utf8)) {
            print(body.prettyText)
        } else {
            print(reply.body)
        }
        return reply.statusCode
    }

    private struct Reply: Decodable {
        var statusCode: Int
        var body: String
    }
}
