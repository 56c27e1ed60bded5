import Foundation
import PayPulsePorts

/// A ``SecretStore`` in memory, for handler unit tests: Secrets Manager semantics (it runs
/// the contract suite too), a call log so tests can assert that no store call was made,
/// and scripted faults.
package actor InMemorySecretStore: SecretStore {
    private struct Version {
        var value: String
        var created: Date
    }

    private struct Secret {
        var versions: [String: Version] = [:]
        var stages: [SecretStage: String] = [:]
        var tags: [String: String] = [:]
        var deletedDate: Date?
    }

    private var secrets: [String: Secret] = [:]
    /// Every operation called, in order, e.g. `["GetSecretValue", "CreateSecret"]`.
    package private(set) var calls: [String] = []
    private var fault: (@Sendable (String) -> StoreError?)?

    /// Creates an empty store.
    package init() {}

    /// Makes operations fail: `fault(operationName)` returns the error to throw, or `nil`.
    package func setFault(_ fault: (@Sendable (String) -> StoreError?)?) { self.fault = fault }

    /// Forgets the call log.
    package func clearCalls() { calls = [] }

    private func enter(_ operation: String) throws {
        calls.append(operation)
        if let error = fault?(operation) { throw error }
    }

    private func live(_ name: String) throws -> Secret {
        guard let secret = secrets[name] else { throw StoreError.notFound }
        guard secret.deletedDate == nil else { throw StoreError.scheduledForDeletion }
        return secret
    }

    package func createSecret(name: String, value: String, tags: [String: String], clientRequestToken: String) throws -> SecretVersionID {
        try enter("CreateSecret")
        guard secrets[name] == nil else { throw StoreError.alreadyExists }
        var secret = Secret(tags: tags)
        secret.versions[clientRequestToken] = Version(value: value, created: Date())
        secret.stages[.current] = clientRequestToken
        secrets[name] = secret
        return SecretVersionID(clientRequestToken)
    }

    package func getSecretValue(name: String, stage: SecretStage) throws -> SecretValue {
        try enter("GetSecretValue")
        let secret = try live(name)
        guard let id = secret.stages[stage] else { throw StoreError.notFound }
        return value(secret, name: name, id: id)
    }

    package func getSecretValue(name: String, versionID: SecretVersionID) throws -> SecretValue {
        try enter("GetSecretValue")
        let secret = try live(name)
        guard secret.versions[versionID.rawValue] != nil else { throw StoreError.notFound }
        return value(secret, name: name, id: versionID.rawValue)
    }

    private func value(_ secret: Secret, name: String, id: String) -> SecretValue {
        let version = secret.versions[id]!
        let stages = secret.stages.filter { $0.value == id }.map(\.key).sorted { $0.rawValue < $1.rawValue }
        return SecretValue(name: name, versionID: SecretVersionID(id), string: version.value, stages: stages, createdDate: version.created)
    }

    package func describeSecret(name: String) throws -> SecretDescription {
        try enter("DescribeSecret")
        guard let secret = secrets[name] else { throw StoreError.notFound }
        var stages: [SecretVersionID: [SecretStage]] = [:]
        for (stage, id) in secret.stages { stages[SecretVersionID(id), default: []].append(stage) }
        return SecretDescription(name: name, tags: secret.tags, deletedDate: secret.deletedDate, versionStages: stages)
    }

    package func putSecretValue(name: String, value: String, clientRequestToken: String, stages: [SecretStage]) throws -> SecretVersionID {
        try enter("PutSecretValue")
        var secret = try live(name)
        if let existing = secret.versions[clientRequestToken] {
            guard existing.value == value else { throw StoreError.alreadyExists }
            return SecretVersionID(clientRequestToken)
        }
        secret.versions[clientRequestToken] = Version(value: value, created: Date())
        for stage in stages { attach(stage, to: clientRequestToken, in: &secret) }
        secrets[name] = secret
        return SecretVersionID(clientRequestToken)
    }

    private func attach(_ stage: SecretStage, to id: String, in secret: inout Secret) {
        if stage == .current, let old = secret.stages[.current], old != id { secret.stages[.previous] = old }
        secret.stages[stage] = id
    }

    package func updateSecretVersionStage(name: String, stage: SecretStage, moveTo: SecretVersionID?, removeFrom: SecretVersionID?) throws {
        try enter("UpdateSecretVersionStage")
        var secret = try live(name)
        if let removeFrom, secret.stages[stage] != removeFrom.rawValue { throw StoreError.conflict }
        if let moveTo {
            guard secret.versions[moveTo.rawValue] != nil else { throw StoreError.invalidRequest }
            attach(stage, to: moveTo.rawValue, in: &secret)
        } else {
            secret.stages[stage] = nil
        }
        secrets[name] = secret
    }

    package func replaceCurrent(name: String, expected: SecretVersionID, value: String) throws -> SecretVersionID {
        try enter("ReplaceCurrent")
        var secret = try live(name)
        guard secret.stages[.current] == expected.rawValue else { throw StoreError.conflict }
        let version = SecretVersionID.random()
        secret.versions[version.rawValue] = Version(value: value, created: Date())
        attach(.current, to: version.rawValue, in: &secret)
        secrets[name] = secret
        return version
    }

    package func listSecrets(namePrefix: String, tagValue: String?, includePlannedDeletion: Bool, maxResults: Int, nextToken: String?) throws -> SecretPage {
        try enter("ListSecrets")
        let names = secrets.keys.filter { name in
            name.hasPrefix(namePrefix) && (includePlannedDeletion || secrets[name]?.deletedDate == nil)
                && (tagValue.map { secrets[name]?.tags.values.contains($0) == true } ?? true)
        }.sorted()
        let start = nextToken.flatMap(Int.init) ?? 0
        guard start >= 0, start <= names.count else { throw StoreError.invalidRequest }
        let end = min(start + max(maxResults, 1), names.count)
        let page = names[start..<end].map { SecretSummary(name: $0, tags: secrets[$0]!.tags, lastChangedDate: secrets[$0]!.versions.values.map(\.created).max(), deletedDate: secrets[$0]!.deletedDate, currentVersion: secrets[$0]!.stages[.current].map(SecretVersionID.init)) }
        return SecretPage(secrets: page, nextToken: end < names.count ? String(end) : nil)
    }

    package func deleteSecret(name: String, recoveryWindowDays: Int) throws -> Date {
        try enter("DeleteSecret")
        guard (7...30).contains(recoveryWindowDays) else { throw StoreError.invalidRequest }
        var secret = try live(name)
        let now = Date()
        secret.deletedDate = now
        secrets[name] = secret
        return now.addingTimeInterval(Double(recoveryWindowDays) * 86_400)
    }

    package func restoreSecret(name: String) throws {
        try enter("RestoreSecret")
        guard secrets[name] != nil else { throw StoreError.notFound }
        secrets[name]?.deletedDate = nil
    }

    package func tagResource(name: String, tags: [String: String]) throws {
        try enter("TagResource")
        var secret = try live(name)
        secret.tags.merge(tags) { $1 }
        secrets[name] = secret
    }

    package func untagResource(name: String, tagKeys: [String]) throws {
        try enter("UntagResource")
        var secret = try live(name)
        for key in tagKeys { secret.tags[key] = nil }
        secrets[name] = secret
    }
}

/// A ``UserDirectory`` in memory.
package actor InMemoryUserDirectory: UserDirectory {
    private var users: [String: UserRecord] = [:]
    private var fault: StoreError?

    /// Creates a directory holding `users`.
    package init(_ users: [UserRecord] = []) {
        for user in users { self.users[user.userID] = user }
    }

    /// Makes every call fail with `error` (or succeed again with `nil`).
    package func setFault(_ error: StoreError?) { fault = error }

    package func user(id: String) throws -> UserRecord? {
        if let fault { throw fault }
        return users[id]
    }

    package func putUser(_ user: UserRecord) throws {
        if let fault { throw fault }
        users[user.userID] = user
    }
}
