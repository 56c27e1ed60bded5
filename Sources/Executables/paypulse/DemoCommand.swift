#if canImport(FoundationEssentials)
import PayPulseHandlers
import FoundationEssentials
#else
import Foundation
#endif
import ArgumentParser
import PayPulseApp
import PayPulseConfiguration
import PayPulseDomain
import PayPulsePorts
import PayPulseRuntime

/// `paypulse demo`: the main job end to end on the configured store (the embedded one on a
/// fresh clone): a user signs in, the app posts Gmail tokens to store-tokens, and the
/// profile then says Gmail is connected. Each event goes through the same runtime and
/// handlers the function executables use.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo", abstract: "Store a Gmail token set and read the profile, printing each response."
    )

    @Option(help: "The demo user's id.") var userID = "demo-user"

    func run() async throws {
        let context = try await CLIContext.load()
        let app = context.app
        print("store: \(context.storeDescription)")
        try await app.backends.users.putUser(
            UserRecord(userID: userID, name: "Jane Smith", email: "jane@example.com", createdOn: "2024-11-01T10:00:00Z")
        )
        let now = Date()
        let jwt = try DevelopmentTokenMinter(settings: context.authSettings).mint(
            subject: userID, name: "Jane Smith", email: "jane@example.com", issuedAt: now, expiresAt: now.addingTimeInterval(600)
        )

        let tokens = """
            {"access_token":"ya29.demo-access-token","refresh_token":"1//demo-refresh-token","expires_in":3600,\
            "scope":["https://www.googleapis.com/auth/gmail.readonly","https://www.googleapis.com/auth/userinfo.email"],\
            "email":"jane.smith@gmail.com"}
            """
        let stored = try await invoke(app, .storeTokens, DemoEvent(method: "POST", path: "/v1/auth/gmail-tokens", bearer: jwt, jsonBody: tokens))
        let profile = try await invoke(app, .userProfile, DemoEvent(method: "GET", path: "/v1/user/me", bearer: jwt, jsonBody: nil))
        guard stored == 201, profile == 200 else { throw ExitCode.failure }
    }

    /// Runs one event through a function's handlers and prints the answer.
    private func invoke(_ app: AppEnvironment, _ name: HandlerName, _ event: DemoEvent) async throws -> Int {
        let handlers = try await app.eventHandlers(for: name)
        let result = await StdinRunner.process(input: try event.encoded(), logger: app.logger, handlers: handlers)
        let reply = try JSONDecoder().decode(Reply.self, from: Data(result.output))
        print("\n\(event.requestContext.http.method) \(event.rawPath)  (\(name.rawValue))  ->  HTTP \(reply.statusCode)")
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
