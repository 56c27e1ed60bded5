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
            let value = try Self.secretValue(of: clientIDs, digestKey: Self.digestKey(in: current.string) ?? RefreshTokenDigester.newKey(), secretID: name)
            _ = try await secrets.replaceCurrent(name: name, expected: current.versionID, value: value)
        } catch let error as StoreError where error == .notFound {
            let value = try Self.secretValue(of: clientIDs, digestKey: RefreshTokenDigester.newKey(), secretID: name)
            _ = try await secrets.createSecret(name: name, value: value, tags: [:], clientRequestToken: SecretVersionID.random().rawValue)
        }
    }

    /// The secret's text for `clientIDs` and `digestKey`.
    /// - Throws: ``GoogleClients/LoadError`` when it would not parse (a client ID with a space).
    static func secretValue(of clientIDs: [String], digestKey: String, secretID: String) throws -> String {
        // One client as `client_id`: the form other readers of a single-client secret (the
        // Python peer) take.
        let list: (String, JSONValue) = clientIDs.count == 1
            ? ("client_id", .string(clientIDs[0])) : ("client_ids", .array(clientIDs.map(JSONValue.string)))
        let document = JSONValue.object([list.0: list.1, "token_digest_key": .string(digestKey)])
        let value = String(decoding: document.compactJSON() ?? [], as: UTF8.self)
        _ = try GoogleClients.parse(value, secretID: secretID)
        return value
    }

    /// The `token_digest_key` a stored secret holds, if it is JSON with one.
    static func digestKey(in stored: String) -> String? {
        guard case .object(let fields)? = try? JSONValue.decode(Array(stored.utf8)), case .string(let key)? = fields["token_digest_key"] else { return nil }
        return key
    }
}
