#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ArgumentParser
import PayPulseApp
import PayPulseCoding
import PayPulseDomain
import PayPulsePorts

/// `paypulse client-id [ID ...]`: shows or sets the OAuth client IDs secret
/// (`GOOGLE_CLIENT_ID_SECRET_ID`) that store-tokens proves refresh tokens with and
/// token-refresh refreshes them with: one ID, or several (the App Store build, a debug
/// build, ...), the default first. On the embedded store this is the one set-up step a
/// local run needs besides a user.
struct ClientIDCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "client-id", abstract: "Show or set the Google OAuth client IDs secret."
    )

    @Argument(help: "The client IDs to store, the default first (e.g. 1234-abc.apps.googleusercontent.com); omit them to show the stored ones.")
    var clientIDs: [String] = []

    func run() async throws {
        let context = try await CLIContext.load()
        let secrets = try context.backends.secrets
        let name = context.configuration.google.clientIDSecretID
        guard !clientIDs.isEmpty else {
            let clients = try await GoogleClients.load(from: secrets, secretID: name)
            for id in clients.ids { print(id == clients.defaultID && clients.ids.count > 1 ? "\(id) (default)" : id) }
            return
        }
        try await Self.store(clientIDs, in: context)
        print("\(name) = \(clientIDs.joined(separator: ", ")) in the \(context.storeDescription)")
    }

    /// Creates or replaces the client-ID secret with `clientIDs` as
    /// `{"client_id": ..., "token_digest_key": ...}` (several: `"client_ids": [...]`), once it parses: the key the secret
    /// holds is kept (a new one would orphan every grant's listed digests), and one is made
    /// (``RefreshTokenDigester/newKey()``) when it holds none.
    static func store(_ clientIDs: [String], in context: CLIContext) async throws {
        let secrets = try context.backends.secrets
        let name = context.configuration.google.clientIDSecretID
        do {
            let current = try await secrets.getSecretValue(name: name, stage: .current)
            let key = GoogleClients.digestKey(in: current.string) ?? RefreshTokenDigester.newKey()
            let value = try GoogleClients.secretText(ids: clientIDs, digestKey: key, secretID: name)
            _ = try await secrets.replaceCurrent(name: name, expected: current.versionID, value: value)
        } catch let error as StoreError where error == .notFound {
            let value = try GoogleClients.secretText(ids: clientIDs, digestKey: RefreshTokenDigester.newKey(), secretID: name)
            _ = try await secrets.createSecret(name: name, value: value, tags: [:], clientRequestToken: SecretVersionID.random().rawValue)
        }
    }
}
