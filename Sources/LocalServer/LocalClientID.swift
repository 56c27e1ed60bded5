import PayPulseDomain
import PayPulsePorts

/// The OAuth clients the stand-in Google serves: those already stored (a developer's own),
/// else a documented local one, stored where the functions read it.
package enum LocalClientID {
    /// The client ID used when none is stored.
    package static let placeholder = "paypulse-local-ios-client.apps.googleusercontent.com"

    /// The stored clients, storing ``placeholder`` first when there is none, with a new
    /// `token_digest_key` so that Google's `token-revoked` finds local grants too.
    /// - Throws: `StoreError` when the store fails.
    package static func ensure(in secrets: any SecretStore, secretID: String) async throws -> GoogleClients {
        if let stored = try? await GoogleClients.load(from: secrets, secretID: secretID) { return stored }
        let key = RefreshTokenDigester.newKey()
        let value = try GoogleClients.secretText(ids: [placeholder], digestKey: key, secretID: secretID)
        _ = try await secrets.createSecret(name: secretID, value: value, tags: [:], clientRequestToken: SecretVersionID.random().rawValue)
        return GoogleClients(ids: [placeholder], tokenDigester: RefreshTokenDigester(key: key))
    }
}
