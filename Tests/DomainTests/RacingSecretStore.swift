import Foundation
import PayPulsePorts

/// Forwards to a store, but lets another writer act at chosen moments of the calls for
/// secret `name`, each once: right after the first read of its current value, right before
/// or right after the first tag write, right before the first deletion. Deterministic stand-ins for races the concurrency
/// soak runs into.
final class RacingSecretStore: SecretStore, @unchecked Sendable {
    typealias Racer = @Sendable (_ inner: any SecretStore) async throws -> Void

    private let inner: any SecretStore
    private let name: String
    private let lock = NSLock()
    private var afterFirstRead: Racer?
    private var beforeFirstTag: Racer?
    private var afterFirstTag: Racer?
    private var beforeFirstDelete: Racer?
    private var ran = false

    init(
        _ inner: any SecretStore, name: String, afterFirstRead: Racer? = nil, beforeFirstTag: Racer? = nil, afterFirstTag: Racer? = nil,
        beforeFirstDelete: Racer? = nil
    ) {
        self.inner = inner
        self.name = name
        self.afterFirstRead = afterFirstRead
        self.beforeFirstTag = beforeFirstTag
        self.afterFirstTag = afterFirstTag
        self.beforeFirstDelete = beforeFirstDelete
    }

    /// Whether the other writer has acted.
    var raced: Bool { lock.withLock { ran } }

    /// Hands out the racer once, for `name` only.
    private func take(_ racer: ReferenceWritableKeyPath<RacingSecretStore, Racer?>, for name: String) -> Racer? {
        lock.withLock {
            guard name == self.name, let taken = self[keyPath: racer] else { return nil }
            self[keyPath: racer] = nil
            ran = true
            return taken
        }
    }

    func getSecretValue(name: String, stage: SecretStage) async throws -> SecretValue {
        let value = try await inner.getSecretValue(name: name, stage: stage)
        if let racer = take(\.afterFirstRead, for: name) { try await racer(inner) }
        return value
    }

    func tagResource(name: String, tags: [String: String]) async throws {
        if let racer = take(\.beforeFirstTag, for: name) { try await racer(inner) }
        try await inner.tagResource(name: name, tags: tags)
        if let racer = take(\.afterFirstTag, for: name) { try await racer(inner) }
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

    func replaceCurrent(name: String, expected: SecretVersionID, value: String) async throws -> SecretVersionID {
        try await inner.replaceCurrent(name: name, expected: expected, value: value)
    }

    func listSecrets(namePrefix: String, tagValue: String?, includePlannedDeletion: Bool, maxResults: Int, nextToken: String?) async throws -> SecretPage {
        try await inner.listSecrets(namePrefix: namePrefix, tagValue: tagValue, includePlannedDeletion: includePlannedDeletion, maxResults: maxResults, nextToken: nextToken)
    }

    func deleteSecret(name: String, recoveryWindowDays: Int) async throws -> Date {
        if let racer = take(\.beforeFirstDelete, for: name) { try await racer(inner) }
        return try await inner.deleteSecret(name: name, recoveryWindowDays: recoveryWindowDays)
    }

    func restoreSecret(name: String) async throws { try await inner.restoreSecret(name: name) }

    func untagResource(name: String, tagKeys: [String]) async throws { try await inner.untagResource(name: name, tagKeys: tagKeys) }
}
