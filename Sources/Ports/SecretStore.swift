#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the domain needs from a secret store: the Secrets Manager model of named secrets
/// with immutable versions, stage labels, tags, recoverable deletion and prefix listing.
///
/// Two adapters implement it with the same semantics: AWS Secrets Manager over SigV4 and
/// an embedded SQLite store. The contract suite in `Tests/ContractTests` runs against both.
///
/// Semantics every implementation keeps:
/// - A version id is the client request token that created it; writing again with the same
///   token and the same value is a no-op returning that version, with another value it
///   throws ``StoreError/alreadyExists``.
/// - Stage labels are unique within a secret. Attaching a label to a version removes it from
///   the version that held it. When `AWSCURRENT` moves, the version that held it gets
///   `AWSPREVIOUS`.
/// - A secret scheduled for deletion can be described (it shows its deletion date) and
///   restored, but not read or written until it is restored; listing hides it unless asked.
public protocol SecretStore: Sendable {
    /// Creates a secret whose first version holds `value` under `AWSCURRENT`.
    /// - Throws: ``StoreError/alreadyExists`` when the name is taken (AWS may report a
    ///   name scheduled for deletion as ``StoreError/scheduledForDeletion`` instead).
    func createSecret(
        name: String, value: String, tags: [String: String], clientRequestToken: String
    ) async throws -> SecretVersionID

    /// Reads the version that holds `stage`.
    /// - Throws: ``StoreError/notFound`` when the secret or stage does not exist,
    ///   ``StoreError/scheduledForDeletion`` when the secret is deleted.
    func getSecretValue(name: String, stage: SecretStage) async throws -> SecretValue

    /// Reads one version by id.
    func getSecretValue(name: String, versionID: SecretVersionID) async throws -> SecretValue

    /// Describes a secret without reading its value: tags, deletion date, version stages.
    func describeSecret(name: String) async throws -> SecretDescription

    /// Stores a new version with the given stages (default `AWSCURRENT`).
    func putSecretValue(
        name: String, value: String, clientRequestToken: String, stages: [SecretStage]
    ) async throws -> SecretVersionID

    /// Moves `stage` to `moveTo`, removing it from `removeFrom`. The move is refused with
    /// ``StoreError/conflict`` when `removeFrom` no longer holds the stage: this is the
    /// compare-and-swap that Secrets Manager offers.
    func updateSecretVersionStage(
        name: String, stage: SecretStage, moveTo: SecretVersionID?, removeFrom: SecretVersionID?
    ) async throws

    /// Compare-and-swap replace: stores `value` as the new `AWSCURRENT` only if `expected`
    /// still holds `AWSCURRENT`; otherwise throws ``StoreError/conflict`` and the
    /// current value stays. On AWS this is `PutSecretValue` as `AWSPENDING` followed by
    /// `UpdateSecretVersionStage`; the embedded store does it in one transaction.
    func replaceCurrent(
        name: String, expected: SecretVersionID, value: String, clientRequestToken: String
    ) async throws -> SecretVersionID

    /// Lists secrets whose name starts with `namePrefix` (case-sensitive), one page at a time.
    func listSecrets(
        namePrefix: String, includePlannedDeletion: Bool, maxResults: Int, nextToken: String?
    ) async throws -> SecretPage

    /// Schedules the secret for deletion after a recovery window of 7 to 30 days.
    /// - Returns: the date the secret will be deleted for good.
    func deleteSecret(name: String, recoveryWindowDays: Int) async throws -> Date

    /// Cancels a scheduled deletion.
    func restoreSecret(name: String) async throws

    /// Adds or overwrites tags.
    func tagResource(name: String, tags: [String: String]) async throws

    /// Removes tags by key; absent keys are ignored.
    func untagResource(name: String, tagKeys: [String]) async throws
}

extension SecretStore {
    /// Stores a new `AWSCURRENT` version.
    public func putSecretValue(
        name: String, value: String, clientRequestToken: String
    ) async throws -> SecretVersionID {
        try await putSecretValue(
            name: name, value: value, clientRequestToken: clientRequestToken, stages: [.current]
        )
    }
}

/// The operations of ``SecretStore`` by name (Secrets Manager's, plus the compare-and-swap
/// ``SecretStore/replaceCurrent(name:expected:value:clientRequestToken:)``): what a caller
/// says it can reach, and what an adapter maps onto its calls.
public enum SecretOperation: String, Sendable, CaseIterable {
    case createSecret, getSecretValue, describeSecret, putSecretValue, updateSecretVersionStage, replaceCurrent
    case listSecrets, deleteSecret, restoreSecret, tagResource, untagResource
}
