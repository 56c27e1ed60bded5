import Foundation
import PayPulsePorts

/// Wraps a ``SecretStore`` and records every call, reads and listings included, in a
/// ``StoreCallLog`` before passing it on.
package struct CallRecordingSecretStore: SecretStore {
    private let inner: any SecretStore
    /// Where the calls go.
    package let log: StoreCallLog

    /// Wraps `inner`, recording into `log`.
    package init(_ inner: any SecretStore, log: StoreCallLog = StoreCallLog()) {
        self.inner = inner
        self.log = log
    }

    package func createSecret(name: String, value: String, tags: [String: String], clientRequestToken: String) async throws -> SecretVersionID {
        log.record("SecretStore.createSecret(\(name))")
        return try await inner.createSecret(name: name, value: value, tags: tags, clientRequestToken: clientRequestToken)
    }

    package func getSecretValue(name: String, stage: SecretStage) async throws -> SecretValue {
        log.record("SecretStore.getSecretValue(\(name))")
        return try await inner.getSecretValue(name: name, stage: stage)
    }

    package func getSecretValue(name: String, versionID: SecretVersionID) async throws -> SecretValue {
        log.record("SecretStore.getSecretValue(\(name), version)")
        return try await inner.getSecretValue(name: name, versionID: versionID)
    }

    package func describeSecret(name: String) async throws -> SecretDescription {
        log.record("SecretStore.describeSecret(\(name))")
        return try await inner.describeSecret(name: name)
    }

    package func putSecretValue(name: String, value: String, clientRequestToken: String, stages: [SecretStage]) async throws -> SecretVersionID {
        log.record("SecretStore.putSecretValue(\(name))")
        return try await inner.putSecretValue(name: name, value: value, clientRequestToken: clientRequestToken, stages: stages)
    }

    package func updateSecretVersionStage(name: String, stage: SecretStage, moveTo: SecretVersionID?, removeFrom: SecretVersionID?) async throws {
        log.record("SecretStore.updateSecretVersionStage(\(name))")
        try await inner.updateSecretVersionStage(name: name, stage: stage, moveTo: moveTo, removeFrom: removeFrom)
    }

    package func replaceCurrent(name: String, expected: SecretVersionID, value: String) async throws -> SecretVersionID {
        log.record("SecretStore.replaceCurrent(\(name))")
        return try await inner.replaceCurrent(name: name, expected: expected, value: value)
    }

    package func listSecrets(namePrefix: String, tagValue: String?, includePlannedDeletion: Bool, maxResults: Int, nextToken: String?) async throws -> SecretPage {
        log.record(tagValue == nil ? "SecretStore.listSecrets(\(namePrefix))" : "SecretStore.listSecrets(\(namePrefix), tag value)")
        return try await inner.listSecrets(
            namePrefix: namePrefix, tagValue: tagValue, includePlannedDeletion: includePlannedDeletion, maxResults: maxResults, nextToken: nextToken
        )
    }

    package func deleteSecret(name: String, recoveryWindowDays: Int) async throws -> Date {
        log.record("SecretStore.deleteSecret(\(name))")
        return try await inner.deleteSecret(name: name, recoveryWindowDays: recoveryWindowDays)
    }

    package func restoreSecret(name: String) async throws {
        log.record("SecretStore.restoreSecret(\(name))")
        try await inner.restoreSecret(name: name)
    }

    package func tagResource(name: String, tags: [String: String]) async throws {
        log.record("SecretStore.tagResource(\(name))")
        try await inner.tagResource(name: name, tags: tags)
    }

    package func untagResource(name: String, tagKeys: [String]) async throws {
        log.record("SecretStore.untagResource(\(name))")
        try await inner.untagResource(name: name, tagKeys: tagKeys)
    }
}
