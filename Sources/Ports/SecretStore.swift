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
package protocol SecretStore: Sendable {
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
    /// ``StoreError/conflict`` when `removeFrom` no longer holds the stage.
    ///
    /// Kept as part of the Secrets Manager model both adapters implement (the contract suite
    /// checks it); no grant or client-ID write calls it. Their compare-and-swap is
    /// ``replaceCurrent(name:expected:value:)``, which on AWS holds only while `AWSCURRENT`
    /// moves through it alone.
    func updateSecretVersionStage(
        name: String, stage: SecretStage, moveTo: SecretVersionID?, removeFrom: SecretVersionID?
    ) async throws

    /// Compare-and-swap replace: stores `value` as the new `AWSCURRENT` only if `expected`
    /// still holds `AWSCURRENT`; otherwise throws ``StoreError/conflict`` and the
    /// current value stays. The store names the new version. On AWS this is one
    /// `PutSecretValue` whose token can make one version per `expected`; the embedded
    /// store does it in one transaction.
    func replaceCurrent(
        name: String, expected: SecretVersionID, value: String
    ) async throws -> SecretVersionID

    /// Lists secrets whose name starts with `namePrefix` (case-sensitive), one page at a
    /// time; with `tagValue`, only those carrying a tag of exactly that value (Secrets
    /// Manager's `tag-value` filter, a prefix match there, kept exact by the adapter).
    func listSecrets(
        namePrefix: String, tagValue: String?, includePlannedDeletion: Bool, maxResults: Int, nextToken: String?
    ) async throws -> SecretPage

    /// Schedules the secret for deletion after a recovery window of 7 to 30 days.
    /// - Returns: the date the secret will be deleted for good.
    func deleteSecret(name: String, recoveryWindowDays: Int) async throws -> Date

    /// Schedules the secret for deletion as ``deleteSecret(name:recoveryWindowDays:)`` does,
    /// only while `expected` holds `AWSCURRENT`, so a value written after the caller's last
    /// read is never deleted with it. Secrets Manager cannot condition a deletion: there (the
    /// default) the secret is deleted, the version current then compared, and a newer one
    /// restored; the embedded store checks and deletes in one transaction.
    /// - Throws: ``StoreError/conflict`` when another version holds `AWSCURRENT` (the secret
    ///   stands); ``StoreError/notFound`` / ``StoreError/scheduledForDeletion``.
    func deleteSecret(name: String, recoveryWindowDays: Int, ifCurrent expected: SecretVersionID) async throws -> Date

    /// Cancels a scheduled deletion.
    func restoreSecret(name: String) async throws

    /// Whether ``deleteSecret(name:recoveryWindowDays:ifCurrent:)`` checks and deletes in one
    /// step (the embedded store), so a newer version is never deleted even for a moment. When
    /// `false` (Secrets Manager) it deletes, compares and restores in turn, and a failure or
    /// the caller's death between the steps can leave a newer version deleted until a sweep
    /// restores it.
    var deletesConditionally: Bool { get }

    /// Adds or overwrites tags.
    func tagResource(name: String, tags: [String: String]) async throws

    /// Removes tags by key; absent keys are ignored.
    func untagResource(name: String, tagKeys: [String]) async throws
}

extension SecretStore {
    /// Deletes, then compares: a deleted secret takes no value, so the version current after
    /// the deletion is the one deleted; a newer one than `expected` is restored at once.
    ///
    /// The compare and the restore are each tried ``stepsAfterDeletion`` times (after the
    /// client's own retries): a deletion must not end with a newer value deleted because one
    /// call failed. When they keep failing (or the caller dies in between), the secret stays
    /// deleted with its tags: the refresh run's sweep finds a deleted grant whose tags are not
    /// those of the version deleted (`GrantSummary/attributesVersion`) and restores it.
    /// - Throws: ``StoreError/unavailable`` when the compare or the restore kept failing.
    package func deleteSecret(name: String, recoveryWindowDays: Int, ifCurrent expected: SecretVersionID) async throws -> Date {
        let deletion = try await deleteSecret(name: name, recoveryWindowDays: recoveryWindowDays)
        let deleted = try await afterDeletion(of: name, "compare the version deleted") { try await describeSecret(name: name).currentVersion }
        guard let deleted, deleted != expected else { return deletion }
        try await afterDeletion(of: name, "restore the newer version deleted") { try await restoreSecret(name: name) }
        throw StoreError.conflict.with(message: "AWSCURRENT of \(name) is no longer on \(expected): restored, not deleted")
    }

    /// A store whose conditional delete is three calls (the default) says so.
    package var deletesConditionally: Bool { false }

    /// How often each step after a stepwise conditional deletion is tried.
    package static var stepsAfterDeletion: Int { 3 }

    /// One step after a deletion, tried ``stepsAfterDeletion`` times with a short growing wait.
    private func afterDeletion<T: Sendable>(of name: String, _ step: String, _ body: () async throws -> T) async throws -> T {
        var failure: any Error = StoreError.unavailable
        for attempt in 1...Self.stepsAfterDeletion {
            do {
                return try await body()
            } catch {
                failure = error
                if attempt < Self.stepsAfterDeletion { try? await Task.sleep(for: .milliseconds(100 * attempt)) }
            }
        }
        throw StoreError.unavailable.with(
            message: "\(name) is deleted but could not \(step) (\(failure)); the refresh run's sweep restores a newer version"
        )
    }

    /// Lists secrets whose name starts with `namePrefix`, whatever their tags.
    package func listSecrets(
        namePrefix: String, includePlannedDeletion: Bool, maxResults: Int, nextToken: String?
    ) async throws -> SecretPage {
        try await listSecrets(
            namePrefix: namePrefix, tagValue: nil, includePlannedDeletion: includePlannedDeletion, maxResults: maxResults, nextToken: nextToken
        )
    }

    /// Stores a new `AWSCURRENT` version.
    package func putSecretValue(
        name: String, value: String, clientRequestToken: String
    ) async throws -> SecretVersionID {
        try await putSecretValue(
            name: name, value: value, clientRequestToken: clientRequestToken, stages: [.current]
        )
    }
}

/// The id of one immutable secret version (equal to the client request token that made it).
package struct SecretVersionID: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The id as the store spells it.
    package let rawValue: String

    /// Wraps an id.
    package init(_ rawValue: String) { self.rawValue = rawValue }

    package var description: String { rawValue }

    /// A fresh random id (a version-4 UUID in lowercase), usable as a client request token.
    ///
    /// Drawn from the system generator (`getrandom(2)`) rather than `UUID()`, which silently
    /// yields all zeros where `/dev/urandom` is missing (seen in a bare chroot): two writes
    /// with one id would collide.
    package static func random() -> SecretVersionID {
        var generator = SystemRandomNumberGenerator()
        var bytes = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        bytes[6] = (bytes[6] & 0x0F) | 0x40  // version 4
        return SecretVersionID(uuid: bytes)
    }

    /// The id spelled as a UUID (8-4-4-4-12 lowercase hex) of 16 `bytes`, whose version
    /// nibble (byte 6) the caller has set; the RFC 4122 variant bits (byte 8) are set here.
    package init(uuid bytes: [UInt8]) {
        precondition(bytes.count == 16, "a UUID is 16 bytes")
        var bytes = bytes
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 4122 variant
        let hex = bytes.map { byte in (byte < 16 ? "0" : "") + String(byte, radix: 16) }
        let groups = [0..<4, 4..<6, 6..<8, 8..<10, 10..<16].map { hex[$0].joined() }
        self.init(groups.joined(separator: "-"))
    }
}

/// A staging label of a secret version.
package struct SecretStage: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The label as the store spells it.
    package let rawValue: String

    /// Wraps a label.
    package init(_ rawValue: String) { self.rawValue = rawValue }

    package var description: String { rawValue }

    /// The version readers get.
    package static let current = SecretStage("AWSCURRENT")
    /// A version written but not yet promoted.
    package static let pending = SecretStage("AWSPENDING")
    /// The version that held `AWSCURRENT` before the last move.
    package static let previous = SecretStage("AWSPREVIOUS")
}

/// One version of a secret, read with its value.
package struct SecretValue: Sendable, Equatable {
    /// The secret's name.
    package var name: String
    /// The version read.
    package var versionID: SecretVersionID
    /// The stored string.
    package var string: String
    /// The stages this version holds.
    package var stages: [SecretStage]
    /// When the version was created.
    package var createdDate: Date?

    /// Creates a value.
    package init(
        name: String, versionID: SecretVersionID, string: String, stages: [SecretStage], createdDate: Date?
    ) {
        self.name = name
        self.versionID = versionID
        self.string = string
        self.stages = stages
        self.createdDate = createdDate
    }
}

/// A secret's metadata, read without its value.
package struct SecretDescription: Sendable, Equatable {
    /// The secret's name.
    package var name: String
    /// Its tags.
    package var tags: [String: String]
    /// When it was scheduled for deletion; `nil` when it is not.
    package var deletedDate: Date?
    /// The stages held by each version that holds any.
    package var versionStages: [SecretVersionID: [SecretStage]]

    /// Creates a description.
    package init(
        name: String, tags: [String: String], deletedDate: Date?,
        versionStages: [SecretVersionID: [SecretStage]]
    ) {
        self.name = name
        self.tags = tags
        self.deletedDate = deletedDate
        self.versionStages = versionStages
    }

    /// Whether the secret is scheduled for deletion.
    package var isScheduledForDeletion: Bool { deletedDate != nil }

    /// The version holding `AWSCURRENT`, if any.
    package var currentVersion: SecretVersionID? {
        versionStages.first { $0.value.contains(.current) }?.key
    }
}

/// A secret as listed: name, tags, when its value last changed and deletion date, no value.
package struct SecretSummary: Sendable, Equatable {
    /// The secret's name.
    package var name: String
    /// Its tags.
    package var tags: [String: String]
    /// When a value was last written (created or put): Secrets Manager's `LastChangedDate`.
    /// Tag changes and stage moves may or may not move it (moto: not; AWS: reported to),
    /// so only "a value was written at least this recently" may be read from it.
    package var lastChangedDate: Date?
    /// When it was scheduled for deletion; `nil` when it is not.
    package var deletedDate: Date?
    /// The version holding `AWSCURRENT` (Secrets Manager's `SecretVersionsToStages`), so a
    /// listing can tell whether tags stamped with a version describe the current value;
    /// `nil` when the store does not say.
    package var currentVersion: SecretVersionID?

    /// Creates a summary.
    package init(
        name: String, tags: [String: String], lastChangedDate: Date? = nil, deletedDate: Date?, currentVersion: SecretVersionID? = nil
    ) {
        self.name = name
        self.tags = tags
        self.lastChangedDate = lastChangedDate
        self.deletedDate = deletedDate
        self.currentVersion = currentVersion
    }
}

/// One page of a listing.
package struct SecretPage: Sendable, Equatable {
    /// The secrets on this page. Secrets Manager promises no order across pages; the
    /// embedded store lists by name.
    package var secrets: [SecretSummary]
    /// The token for the next page; `nil` on the last page.
    package var nextToken: String?

    /// Creates a page.
    package init(secrets: [SecretSummary], nextToken: String?) {
        self.secrets = secrets
        self.nextToken = nextToken
    }
}

/// The operations of ``SecretStore`` by name (Secrets Manager's, plus the compare-and-swap
/// ``SecretStore/replaceCurrent(name:expected:value:)``): what a caller
/// says it can reach, and what an adapter maps onto its calls.
package enum SecretOperation: String, Sendable, CaseIterable {
    case createSecret, getSecretValue, describeSecret, putSecretValue, updateSecretVersionStage, replaceCurrent
    case listSecrets, deleteSecret, restoreSecret, tagResource, untagResource
}
