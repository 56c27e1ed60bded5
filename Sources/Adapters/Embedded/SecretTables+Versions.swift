#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulsePorts

/// One stored version, without its stages.
struct VersionRecord: Sendable {
    var versionID: SecretVersionID
    var value: String
    var createdDate: Date
}

extension SecretTables {
    /// How many of the newest versions are kept even when they hold no stage; older
    /// stage-less versions are pruned so the file stays small.
    static let keptUnstagedVersions = 10

    /// The version `id` of secret `name`, or `nil`.
    func version(_ id: SecretVersionID, of name: String) throws -> VersionRecord? {
        try connection.queryFirst(
            "SELECT value, created_date FROM secret_versions WHERE secret_name = ?1 AND version_id = ?2",
            [.text(name), .text(id.rawValue)]
        ) { row in
            VersionRecord(versionID: id, value: row.text(0), createdDate: Date(timeIntervalSince1970: row.real(1)))
        }
    }

    /// Stores `value` as version `id` unless that version exists.
    /// - Returns: `true` when the version is new, `false` when it already held this value
    ///   (an idempotent retry).
    /// - Throws: ``StoreError/alreadyExists`` when version `id` holds another value.
    func insertVersion(_ id: SecretVersionID, value: String, of name: String) throws -> Bool {
        if let existing = try version(id, of: name) {
            guard existing.value == value else {
                throw StoreError.alreadyExists.with(
                    message: "version \(id) of \(name) already exists with another value")
            }
            return false
        }
        try connection.run(
            "INSERT INTO secret_versions (secret_name, version_id, value, created_date) VALUES (?1, ?2, ?3, ?4)",
            [.text(name), .text(id.rawValue), .text(value), .real(now)]
        )
        return true
    }

    /// The version holding `stage`, or `nil`.
    func holder(of stage: SecretStage, in name: String) throws -> SecretVersionID? {
        try connection.queryFirst(
            "SELECT version_id FROM secret_stages WHERE secret_name = ?1 AND stage = ?2",
            [.text(name), .text(stage.rawValue)]
        ) { SecretVersionID($0.text(0)) }
    }

    /// The stages each version holds (versions holding none are left out).
    func stagesByVersion(in name: String) throws -> [SecretVersionID: [SecretStage]] {
        let rows = try connection.query(
            "SELECT version_id, stage FROM secret_stages WHERE secret_name = ?1 ORDER BY stage",
            [.text(name)]
        ) { row in (SecretVersionID(row.text(0)), SecretStage(row.text(1))) }
        return Dictionary(grouping: rows, by: \.0).mapValues { $0.map(\.1) }
    }

    /// The stages version `id` holds, sorted.
    func stages(of id: SecretVersionID, in name: String) throws -> [SecretStage] {
        try connection.query(
            "SELECT stage FROM secret_stages WHERE secret_name = ?1 AND version_id = ?2 ORDER BY stage",
            [.text(name), .text(id.rawValue)]
        ) { SecretStage($0.text(0)) }
    }

    /// Attaches `stage` to version `id`, taking it from whichever version held it.
    /// When `AWSCURRENT` moves, the version that held it gets `AWSPREVIOUS`.
    func attach(_ stage: SecretStage, to id: SecretVersionID, in name: String) throws {
        let former = try holder(of: stage, in: name)
        guard former != id else { return }
        if stage == .current, let former {
            try attach(.previous, to: former, in: name)
        }
        try connection.run(
            """
            INSERT INTO secret_stages (secret_name, stage, version_id) VALUES (?1, ?2, ?3)
            ON CONFLICT (secret_name, stage) DO UPDATE SET version_id = excluded.version_id
            """,
            [.text(name), .text(stage.rawValue), .text(id.rawValue)]
        )
    }

    /// Removes `stage` from whichever version holds it.
    func detach(_ stage: SecretStage, in name: String) throws {
        try connection.run(
            "DELETE FROM secret_stages WHERE secret_name = ?1 AND stage = ?2",
            [.text(name), .text(stage.rawValue)]
        )
    }

    /// Deletes the versions that hold no stage and are not among the newest
    /// ``keptUnstagedVersions``.
    /// - Returns: how many versions were deleted.
    @discardableResult
    func prune(_ name: String) throws -> Int {
        try connection.run(
            """
            DELETE FROM secret_versions
            WHERE secret_name = ?1
              AND version_id NOT IN (SELECT version_id FROM secret_stages WHERE secret_name = ?1)
              AND id NOT IN (
                  SELECT id FROM secret_versions WHERE secret_name = ?1 ORDER BY id DESC LIMIT ?2)
            """,
            [.text(name), .integer(Int64(Self.keptUnstagedVersions))]
        )
    }
}
