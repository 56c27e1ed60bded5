import Foundation
import PayPulsePorts

/// Wraps a ``SecretStore`` and counts the quota-counted writes (PutSecretValue and
/// UpdateSecretVersionStage; a compare-and-swap is one PutSecretValue on Secrets Manager).
/// Their pacing is checked on the limiter's own grants (``PermitLog``), not on when writes
/// arrive here, which a loaded machine moves.
package final class WriteRecordingSecretStore: SecretStore, @unchecked Sendable {
    private let inner: any SecretStore
    private let lock = NSLock()
    private var writes = 0

    /// Wraps `inner`.
    package init(_ inner: any SecretStore) { self.inner = inner }

    private func record(_ count: Int) {
        lock.withLock { writes += count }
    }

    /// All recorded writes.
    package var writeCount: Int { lock.withLock { writes } }

    package func createSecret(name: String, value: String, tags: [String: String], clientRequestToken: String) async throws -> SecretVersionID {
        try await inner.createSecret(name: name, value: value, tags: tags, clientRequestToken: clientRequestToken)
    }

    package func getSecretValue(name: String, stage: SecretStage) async throws -> SecretValue {
        try await inner.getSecretValue(name: name, stage: stage)
    }

    package func getSecretValue(name: String, versionID: SecretVersionID) async throws -> SecretValue {
        try await inner.getSecretValue(name: name, versionID: versionID)
    }

    package func describeSecret(name: String) async throws -> SecretDescription { try await inner.describeSecret(name: name) }

    package func putSecretValue(name: String, value: String, clientRequestToken: String, stages: [SecretStage]) async throws -> SecretVersionID {
        record(1)
        return try await inner.putSecretValue(name: name, value: value, clientRequestToken: clientRequestToken, stages: stages)
    }

    package func updateSecretVersionStage(name: String, stage: SecretStage, moveTo: SecretVersionID?, removeFrom: SecretVersionID?) async throws {
        record(1)
        try await inner.updateSecretVersionStage(name: name, stage: stage, moveTo: moveTo, removeFrom: removeFrom)
    }

    package func replaceCurrent(name: String, expected: SecretVersionID, value: String) async throws -> SecretVersionID {
        record(1)
        return try await inner.replaceCurrent(name: name, expected: expected, value: value)
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
