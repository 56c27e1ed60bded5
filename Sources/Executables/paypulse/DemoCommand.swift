#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ArgumentParser
import PayPulseConfiguration
import PayPulsePorts

/// `paypulse demo`: walks the storage contract on the configured store (the embedded one
/// on a fresh clone): a user, a token set, a refresh by compare-and-swap, and a refresh
/// that loses to newer tokens and changes nothing.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "demo", abstract: "Show the storage contract at work on the configured store.")

    @Option(help: "The demo user's id.") var userID = "demo-user"

    func run() async throws {
        let context = try CLIContext.load()
        let secrets = context.backends.secrets
        let name = SecretsCommand.prefix + userID
        print("store: \(context.storeDescription)")

        try await context.backends.users.putUser(
            UserRecord(userID: userID, name: "Demo User", email: "demo@paypulse.example", createdOn: "2024-11-01T10:00:00Z")
        )
        print("1. user \(userID) stored in the users table")

        let stored = try await storeFirstVersion(secrets, name: name)
        print("2. token set stored as \(name), version \(stored)")

        let refreshed = try await secrets.replaceCurrent(
            name: name, expected: stored, value: tokenSet(access: "ya29.demo-refreshed"), clientRequestToken: SecretVersionID.random().rawValue
        )
        print("3. a refresh replaced version \(stored) with \(refreshed) (compare-and-swap won)")

        do {
            _ = try await secrets.replaceCurrent(
                name: name, expected: stored, value: tokenSet(access: "ya29.demo-stale"), clientRequestToken: SecretVersionID.random().rawValue
            )
            print("4. unexpected: a refresh from a stale version was accepted")
            throw ExitCode.failure
        } catch let error as StoreError where error == .conflict {
            print("4. a refresh from stale version \(stored) was refused (\(error.codeName)); version \(refreshed) stays current")
        }

        let description = try await secrets.describeSecret(name: name)
        let tags = description.tags.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        print("5. described without reading the value: current \(description.currentVersion?.rawValue ?? "none"), tags \(tags)")
    }

    /// Creates the secret, or (on a second run) stores a new current version.
    private func storeFirstVersion(_ secrets: any SecretStore, name: String) async throws -> SecretVersionID {
        let token = SecretVersionID.random().rawValue
        do {
            return try await secrets.createSecret(
                name: name, value: tokenSet(access: "ya29.demo-first"), tags: ["paypulse:status": "active"], clientRequestToken: token
            )
        } catch let error as StoreError where error == .alreadyExists || error == .scheduledForDeletion {
            if (try? await secrets.describeSecret(name: name))?.isScheduledForDeletion == true {
                try await secrets.restoreSecret(name: name)
            }
            return try await secrets.putSecretValue(name: name, value: tokenSet(access: "ya29.demo-first"), clientRequestToken: token)
        }
    }

    private func tokenSet(access: String) -> String {
        let now = Date()
        return """
            {"version":1,"access_token":"\(access)","refresh_token":"1//demo-refresh","token_type":"Bearer",\
            "expires_at":"\(now.addingTimeInterval(3600).formatted(.iso8601))","scope":"https://www.googleapis.com/auth/gmail.readonly",\
            "google_email":"demo@gmail.com","status":"active"}
            """
    }
}
