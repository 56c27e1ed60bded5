import Foundation
import PayPulsePorts
import Synchronization

/// Forwards to a store, but every compare-and-swap loses (or the first `losing` of them),
/// as if another writer always came first: a ``PayPulseDomain/TokenVault`` over it runs a
/// reconnect that restores a deleted secret and then answers 409.
package struct LosingWritesSecretStore: SecretStore {
    let inner: any SecretStore
    private let losses: Losses

    private final class Losses: Sendable {
        let left: Mutex<Int>
        init(_ count: Int) { left = Mutex(count) }
    }

    /// Wraps `inner`; its first `losing` compare-and-swaps lose (all of them by default).
    package init(inner: any SecretStore, losing: Int = .max) {
        self.inner = inner
        losses = Losses(losing)
    }

    package func replaceCurrent(name: String, expected: SecretVersionID, value: String) async throws -> SecretVersionID {
        let loses = losses.left.withLock { left in
            guard left > 0 else { return false }
            left -= 1
            return true
        }
        guard !loses else { throw StoreError.conflict }
        return try await inner.replaceCurrent(name: name, expected: expected, value: value)
    }

    package func createSecret(name: String, value: String, tags: [String: String], clientRequestToken: String) async throws -> SecretVersionID {
        try await inner.createSecret(name: name, value: value, tags: tags, clientRequestToken: clientRequestToken)
    }

    package func getSecretValue(name: String, stage: SecretStage) async throws -> SecretValue { try await inner.getSecretValue(name: name, stage: stage) }

    package func getSecretValue(name: String, versionID: SecretVersionID) async throws -> SecretValue {
        try await inner.getSecretValue(name: name, versionID: versionID)
    }

    package func describeSecret(name: String) async throws -> SecretDescription { try await inner.describeSecret(name: name) }

    package func putSecretValue(name: String, value: String, clientRequestToken: String, stages: [SecretStage]) async throws -> SecretVersionID {
        try await inner.putSecretValue(name: name, value: value, clientRequestToken: clientRequestToken, stages: stages)
    }

    package func updateSecretVersionStage(name: String, stage: SecretStage, moveTo: SecretVersionID?, removeFrom: SecretVersionID?) async throws {
        try await inner.updateSecretVersionStage(name: name, stage: stage, moveTo: moveTo, removeFrom: removeFrom)
    }

    package func listSecrets(namePrefix: String, tagValue: String?, includePlannedDeletion: Bool, maxResults: Int, nextToken: String?) async throws -> SecretPage {
        try await inner.listSecrets(namePrefix: namePrefix, tagValue: tagValue, includePlannedDeletion: includePlannedDeletion, maxResults: maxResults, nextToken: nextToken)
    }

    package func deleteSecret(name: String, recoveryWindowDays: Int) async throws -> Date {
        try await inner.deleteSecret(name: name, recoveryWindowDays: recoveryWindowDays)
    }

    package func restoreSecret(name: String) async throws { try await inner.restoreSecret(name: name) }

    package func tagResource(name: String, tags: [String: String]) async throws { try await inner.tagResource(name: name, tags: tags) }

    package func untagResource(name: String, tagKeys: [String]) async throws { try await inner.untagResource(name: name, tagKeys: tagKeys) }
}
