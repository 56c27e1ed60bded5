#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulsePorts

/// The ``GrantStore`` port on a ``SecretStore`` (AWS Secrets Manager, or the embedded
/// SQLite store with its semantics): user `u`'s grant is secret `gmail/user/u`, its value
/// the secret's `AWSCURRENT` version, its attributes the secret's tags.
///
/// Each operation makes the calls the vault made before the port existed, in the same
/// order: a read is one `GetSecretValue`, a compare-and-swap one `PutSecretValue`
/// (``SecretStore/replaceCurrent(name:expected:value:)``), then `TagResource` when
/// attributes are given; a conditional delete is `DeleteSecret`, `DescribeSecret`, and
/// `RestoreSecret` when it took a newer version.
package struct SecretsManagerGrantStore: GrantStore {
    /// The secret-name prefix of every grant.
    package static let prefix = "gmail/user/"

    let secrets: any SecretStore

    /// Serves grants from `secrets`.
    package init(_ secrets: any SecretStore) {
        self.secrets = secrets
    }

    /// The secret that holds `user`'s grant: `gmail/user/{user}`.
    package static func secretName(of user: String) -> String { prefix + user }

    /// The secret-store calls each grant operation makes, on secrets `gmail/user/*`: what a
    /// function reaching those operations needs of the secret store.
    package static func secretOperations(for operation: GrantOperation) -> Set<SecretOperation> {
        switch operation {
        case .state: [.describeSecret]
        case .read: [.getSecretValue]
        case .create: [.createSecret]
        case .replace: [.replaceCurrent, .tagResource]
        case .mark: [.tagResource]
        case .delete: [.deleteSecret, .describeSecret, .restoreSecret]
        case .restore: [.restoreSecret]
        case .list, .listDue, .findByAttribute: [.listSecrets]
        }
    }

    /// Tags are written by a call of their own, after the value.
    package var writesAttributesWithValue: Bool { false }

    package func state(of user: String) async throws -> GrantState {
        let description = try await secrets.describeSecret(name: Self.secretName(of: user))
        return GrantState(
            attributes: description.tags, deletionDate: description.deletedDate,
            currentVersion: description.currentVersion.map { GrantVersion($0.rawValue) }
        )
    }

    package func read(_ user: String) async throws -> GrantValue {
        let value = try await secrets.getSecretValue(name: Self.secretName(of: user), stage: .current)
        return GrantValue(value: value.string, version: GrantVersion(value.versionID.rawValue))
    }

    @discardableResult
    package func create(_ user: String, value: String, attributes: [String: String]) async throws -> GrantVersion {
        let version = try await secrets.createSecret(
            name: Self.secretName(of: user), value: value, tags: attributes, clientRequestToken: SecretVersionID.random().rawValue
        )
        return GrantVersion(version.rawValue)
    }

    @discardableResult
    package func replace(_ user: String, expected: GrantVersion, value: String, attributes: [String: String]?) async throws -> GrantVersion {
        let version = try await secrets.replaceCurrent(
            name: Self.secretName(of: user), expected: SecretVersionID(expected.rawValue), value: value
        )
        if let attributes { try await mark(user, attributes: attributes) }
        return GrantVersion(version.rawValue)
    }

    /// Tags cannot be conditioned on a version: `expected` is not checked here (the vault
    /// checks for an overtaking writer after tagging).
    package func mark(_ user: String, attributes: [String: String], expected: GrantVersion?) async throws {
        try await secrets.tagResource(name: Self.secretName(of: user), tags: attributes)
    }

    /// Conditioned on `expected` as the secret store can (``SecretStore/deleteSecret(name:recoveryWindowDays:ifCurrent:)``):
    /// on Secrets Manager a newer version the delete took is restored at once.
    @discardableResult
    package func delete(_ user: String, expected: GrantVersion?, recoveryWindowDays: Int) async throws -> Date {
        let name = Self.secretName(of: user)
        guard let expected else { return try await secrets.deleteSecret(name: name, recoveryWindowDays: recoveryWindowDays) }
        return try await secrets.deleteSecret(name: name, recoveryWindowDays: recoveryWindowDays, ifCurrent: SecretVersionID(expected.rawValue))
    }

    package func restore(_ user: String) async throws {
        try await secrets.restoreSecret(name: Self.secretName(of: user))
    }

    package func users(with attribute: IndexedGrantAttribute, equalTo value: String) async throws -> [String] {
        var users: [String] = []
        var next: String?
        repeat {
            let page = try await secrets.listSecrets(namePrefix: Self.prefix, tagValue: value, includePlannedDeletion: false, maxResults: 100, nextToken: next)
            // The filter matches any tag's value: keep the attribute's tag alone.
            users += page.secrets.filter { $0.tags[attribute.rawValue] == value }.map { String($0.name.dropFirst(Self.prefix.count)) }
            next = page.nextToken
        } while next != nil
        return users
    }

    package func list(userPrefix: String, includeDeleted: Bool, cursor: String?, limit: Int) async throws -> GrantPage {
        let page = try await secrets.listSecrets(
            namePrefix: Self.prefix + userPrefix, includePlannedDeletion: includeDeleted, maxResults: limit, nextToken: cursor
        )
        let grants = page.secrets.compactMap { secret -> GrantSummary? in
            guard secret.name.hasPrefix(Self.prefix), includeDeleted || secret.deletedDate == nil else { return nil }
            return GrantSummary(
                user: String(secret.name.dropFirst(Self.prefix.count)), attributes: secret.tags, lastWritten: secret.lastChangedDate,
                deletionDate: secret.deletedDate
            )
        }
        return GrantPage(grants: grants, cursor: page.nextToken)
    }
}
