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
///
/// Every tag write carries ``versionTag``, the version the tags describe, so a listing
/// (`ListSecrets` shows each secret's `AWSCURRENT` version) tells tags a failed or overtaken
/// tag write left behind (``GrantAttributesVersion/stale``).
package struct SecretsManagerGrantStore: GrantStore {
    /// The secret-name prefix of every grant.
    package static let prefix = "gmail/user/"

    /// The tag naming the version the other tags were written for.
    package static let versionTag = "paypulse:tags-for"

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

    /// Stepwise unless the secret store checks and deletes in one step.
    package var deletesInSteps: Bool { !secrets.deletesConditionally }

    /// `tags` stamped with the version they describe.
    static func stamped(_ tags: [String: String], for version: String) -> [String: String] {
        tags.merging([versionTag: version]) { $1 }
    }

    /// The attributes `tags` hold: all but the stamp, the store's own bookkeeping.
    static func attributes(_ tags: [String: String]) -> [String: String] {
        var attributes = tags
        attributes[versionTag] = nil
        return attributes
    }

    /// Whether `tags` were written for `current`, the secret's `AWSCURRENT` version.
    static func attributesVersion(of tags: [String: String], current: SecretVersionID?) -> GrantAttributesVersion {
        guard let stamp = tags[versionTag] else { return .unstamped }
        guard let current else { return .current }  // a store that does not say: nothing to compare
        return stamp == current.rawValue ? .current : .stale
    }

    package func state(of user: String) async throws -> GrantState {
        let description = try await secrets.describeSecret(name: Self.secretName(of: user))
        return GrantState(
            attributes: Self.attributes(description.tags), deletionDate: description.deletedDate,
            currentVersion: description.currentVersion.map { GrantVersion($0.rawValue) }
        )
    }

    package func read(_ user: String) async throws -> GrantValue {
        let value = try await secrets.getSecretValue(name: Self.secretName(of: user), stage: .current)
        return GrantValue(value: value.string, version: GrantVersion(value.versionID.rawValue))
    }

    @discardableResult
    package func create(_ user: String, value: String, attributes: [String: String]) async throws -> GrantVersion {
        let token = SecretVersionID.random().rawValue
        let version = try await secrets.createSecret(
            name: Self.secretName(of: user), value: value, tags: Self.stamped(attributes, for: token), clientRequestToken: token
        )
        return GrantVersion(version.rawValue)
    }

    @discardableResult
    package func replace(_ user: String, expected: GrantVersion, value: String, attributes: [String: String]?) async throws -> GrantVersion {
        let version = try await secrets.replaceCurrent(
            name: Self.secretName(of: user), expected: SecretVersionID(expected.rawValue), value: value
        )
        let written = GrantVersion(version.rawValue)
        guard let attributes else { return written }
        do {
            try await mark(user, attributes: attributes, expected: written)
        } catch {
            throw AttributesNotWritten(version: written, cause: error)
        }
        return written
    }

    /// Tags cannot be conditioned on a version: `expected` is not checked here (the vault
    /// checks for an overtaking writer after tagging). It is the version stamped on them;
    /// without one the stamp is left as it is.
    package func mark(_ user: String, attributes: [String: String], expected: GrantVersion?) async throws {
        let tags = expected.map { Self.stamped(attributes, for: $0.rawValue) } ?? attributes
        try await secrets.tagResource(name: Self.secretName(of: user), tags: tags)
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
                user: String(secret.name.dropFirst(Self.prefix.count)), attributes: Self.attributes(secret.tags), lastWritten: secret.lastChangedDate,
                deletionDate: secret.deletedDate, attributesVersion: Self.attributesVersion(of: secret.tags, current: secret.currentVersion)
            )
        }
        return GrantPage(grants: grants, cursor: page.nextToken)
    }
}
