#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ArgumentParser
import PayPulseApp
import PayPulseDomain
import PayPulsePorts

/// `paypulse client-id [ID]`: shows or sets the iOS OAuth client ID secret
/// (`GOOGLE_CLIENT_ID_SECRET_ID`) that store-tokens verifies refresh tokens with and
/// token-refresh refreshes them with. On the embedded store this is the one set-up step
/// a local run needs besides a user.
struct ClientIDCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "client-id", abstract: "Show or set the Google iOS OAuth client ID secret."
    )

    @Argument(help: "The client ID to store (e.g. 1234-abc.apps.googleusercontent.com); omit it to show the stored one.")
    var clientID: String?

    func run() async throws {
        let context = try await CLIContext.load()
        let secrets = context.backends.secrets
        let name = context.configuration.google.clientIDSecretID
        guard let clientID else {
            print(try await GoogleClientID.load(from: secrets, secretID: name))
            return
        }
        try await Self.store(clientID, in: context)
        print("\(name) = \(clientID) in the \(context.storeDescription)")
    }

    /// Creates or replaces the client-ID secret with `clientID`, once it parses as one.
    static func store(_ clientID: String, in context: CLIContext) async throws {
        let secrets = context.backends.secrets
        let name = context.configuration.google.clientIDSecretID
        _ = try GoogleClientID.parse(clientID, secretID: name)
        do {
            let current = try await secrets.getSecretValue(name: name, stage: .current)
            _ = try await secrets.replaceCurrent(
                name: name, expected: current.versionID, value: clientID, clientRequestToken: SecretVersionID.random().rawValue
            )
        } catch let error as StoreError where error == .notFound {
            _ = try await secrets.createSecret(name: name, value: clientID, tags: [:], clientRequestToken: SecretVersionID.random().rawValue)
        }
    }
}
