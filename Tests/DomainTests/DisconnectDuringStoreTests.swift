import Foundation
import PayPulseDomain
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// A disconnect that lands between store-tokens' read and its compare-and-swap (found by
/// the concurrency soak, where it answered 500): the store must reconnect, not fail.
@Suite("TokenVault.store racing a disconnect")
struct DisconnectDuringStoreTests {
    /// Stores that refuse writes to a deleted secret, as AWS does (moto accepts them).
    static var factories: [StoreFactory] { [.embedded, .inMemory] }

    @Test("a disconnect after the read: the store restores the secret and counts as a first connection", arguments: factories)
    func disconnectBetweenReadAndWrite(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let user = UserID("race-\(UUID().uuidString.prefix(8))")!
            _ = try await TokenVault(secrets: stores.secrets).store(
                IncomingTokens(accessToken: "a1", refreshToken: "r1", email: "jane@gmail.com"), for: user
            )
            let racing = DisconnectAfterFirstRead(stores.secrets, name: user.secretName)
            let result = try await TokenVault(secrets: racing).store(
                IncomingTokens(accessToken: "a2", refreshToken: "r2", email: "jane@gmail.com"), for: user
            )
            #expect(racing.didDisconnect)
            #expect(result.outcome == .firstConnection)
            let vault = TokenVault(secrets: stores.secrets)
            #expect(try await vault.connectionState(of: user) == .connected)
            #expect(try await vault.current(of: user)?.tokenSet.accessToken == "a2")
        }
    }
}

/// Forwards to a store, but right after the first read of `name`'s current value it deletes
/// that secret, as a disconnect running at that moment would.
final class DisconnectAfterFirstRead: SecretStore, @unchecked Sendable {
    private let inner: any SecretStore
    private let name: String
    private let lock = NSLock()
    private var disconnected = false

    init(_ inner: any SecretStore, name: String) {
        self.inner = inner
        self.name = name
    }

    var didDisconnect: Bool { lock.withLock { disconnected } }

    func getSecretValue(name: String, stage: SecretStage) async throws -> SecretValue {
        let value = try await inner.getSecretValue(name: name, stage: stage)
        let first = lock.withLock { () -> Bool in
            defer { disconnected = true }
            return name == self.name && !disconnected
        }
        if first { _ = try await inner.deleteSecret(name: name, recoveryWindowDays: 7) }
        return value
    }

    func createSecret(name: String, value: String, tags: [String: String], clientRequestToken: String) async throws -> SecretVersionID {
        try await inner.createSecret(name: name, value: value, tags: tags, clientRequestToken: clientRequestToken)
    }

    func getSecretValue(name: String, versionID: SecretVersionID) async throws -> SecretValue {
        try await inner.getSecretValue(name: name, versionID: versionID)
    }

    func describeSecret(name: String) async throws -> SecretDescription { try await inner.describeSecret(name: name) }

    func putSecretValue(name: String, value: String, clientRequestToken: String, stages: [SecretStage]) async throws -> SecretVersionID {
        try await inner.putSecretValue(name: name, value: value, clientRequestToken: clientRequestToken, stages: stages)
    }

    func updateSecretVersionStage(name: String, stage: SecretStage, moveTo: SecretVersionID?, removeFrom: SecretVersionID?) async throws {
        try await inner.updateSecretVersionStage(name: name, stage: stage, moveTo: moveTo, removeFrom: removeFrom)
    }

    func replaceCurrent(name: String, expected: SecretVersionID, value: String, clientRequestToken: String) async throws -> SecretVersionID {
        try await inner.replaceCurrent(name: name, expected: expected, value: value, clientRequestToken: clientRequestToken)
    }

    func listSecrets(namePrefix: String, includePlannedDeletion: Bool, maxResults: Int, nextToken: String?) async throws -> SecretPage {
        try await inner.listSecrets(namePrefix: namePrefix, includePlannedDeletion: includePlannedDeletion, maxResults: maxResults, nextToken: nextToken)
    }

    func deleteSecret(name: String, recoveryWindowDays: Int) async throws -> Date {
        try await inner.deleteSecret(name: name, recoveryWindowDays: recoveryWindowDays)
    }

    func restoreSecret(name: String) async throws { try await inner.restoreSecret(name: name) }

    func tagResource(name: String, tags: [String: String]) async throws { try await inner.tagResource(name: name, tags: tags) }

    func untagResource(name: String, tagKeys: [String]) async throws { try await inner.untagResource(name: name, tagKeys: tagKeys) }
}
