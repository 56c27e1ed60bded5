import Foundation
import PayPulsePorts

/// Wraps a ``SecretStore`` and records every call, reads and listings included, in a
/// ``StoreCallLog`` before passing it on.
public struct CallRecordingSecretStore: SecretStore {
    private let inner: any SecretStore
    /// Where the calls go.
    public let log: StoreCallLog

    /// Wraps `inner`, recording into `log`.
    public init(_ inner: any SecretStore, log: StoreCallLog = StoreCallLog()) {
        self.inner = inner
        self.log = log
    }

    public func createSecret(name: String, value: String, tags: [String: String], clientRequestToken: String) async throws -> SecretVersionID {
        log.record("SecretStore.createSecret(\(name))")
        return try await inner.createSecret(name: name, value: value, tags: tags, clientRequestToken: clientRequestToken)
    }

    public func getSecretValue(name: String, stage: SecretStage) async throws -> SecretValue {
        log.record("SecretStore.getSecretValue(\(name))")
        return try await inner.getSecretValue(name: name, stage: stage)
    }

    public func getSecretValue(name: String, versionID: SecretVersionID) async throws -> SecretValue {
        log.record("SecretStore.getSecretValue(\(name), version)")
        return try await inner.getSecretValue(name: name, versionID: versionID)
    }

    public func describeSecret(name: String) async throws -> SecretDescription {
        log.record("SecretStore.describeSecret(\(name))")
        return try await inner.describeSecret(name: name)
    }

    public func putSecretValue(name: String, value: String, clientRequestToken: String, stages: [SecretStage]) async throws -> SecretVersionID {
        log.record("SecretStore.putSecretValue(\(name))")
        return try await inner.putSecretValue(name: name, value: value, clientRequestToken: clientRequestToken, stages: stages)
    }

    public func updateSecretVersionStage(name: String, stage: SecretStage, moveTo: SecretVersionID?, removeFrom: SecretVersionID?) async throws {
        log.record("SecretStore.updateSecretVersionStage(\(name))")
        try await inner.updateSecretVersionStage(name: name, stage: stage, moveTo: moveTo, removeFrom: removeFrom)
    }

    public func replaceCurrent(name: String, expected: SecretVersionID, value: String) async throws -> SecretVersionID {
        log.record("SecretStore.replaceCurrent(\(name))")
        return try await inner.replaceCurrent(name: name, expected: expected, value: value)
    }

    public func listSecrets(namePrefix: String, tagValue: String?, includePlannedDeletion: Bool, maxResults: Int, nextToken: String?) async throws -> SecretPage {
        log.record(tagValue == nil ? "SecretStore.listSecrets(\(namePrefix))" : "SecretStore.listSecrets(\(namePrefix), tag value)")
        return try await inner.listSecrets(
            namePrefix: namePrefix, tagValue: tagValue, includePlannedDeletion: includePlannedDeletion, maxResults: maxResults, nextToken: nextToken
        )
    }

    public func deleteSecret(name: String, recoveryWindowDays: Int) async throws -> Date {
        log.record("SecretStore.deleteSecret(\(name))")
        return try await inner.deleteSecret(name: name, recoveryWindowDays: recoveryWindowDays)
    }

    public func restoreSecret(name: String) async throws {
        log.record("SecretStore.restoreSecret(\(name))")
        try await inner.restoreSecret(name: name)
    }

    public func tagResource(name: String, tags: [String: String]) async throws {
        log.record("SecretStore.tagResource(\(name))")
        try await inner.tagResource(name: name, tags: tags)
    }

    public func untagResource(name: String, tagKeys: [String]) async throws {
        log.record("SecretStore.untagResource(\(name))")
        try await inner.untagResource(name: name, tagKeys: tagKeys)
    }
}
