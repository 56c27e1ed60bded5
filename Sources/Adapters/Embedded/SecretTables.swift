#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulsePorts

/// A secret's row in the `secrets` table.
struct SecretRecord: Sendable {
    var name: String
    var deletedDate: Date?
    /// When the newest version was written (listings only).
    var lastChangedDate: Date?
}

/// SQL over the secret tables, within one transaction at one instant `now`.
///
/// A secret whose recovery window has passed counts as gone: reads skip it and every
/// write transaction first purges it (with its versions, stages and tags, by cascade).
struct SecretTables {
    let connection: SQLiteConnection
    /// The transaction's clock reading, in seconds since 1970.
    let now: Double

    /// Deletes for good the secrets whose recovery window has ended.
    func purgeExpired() throws {
        try connection.run(
            "DELETE FROM secrets WHERE deletion_date IS NOT NULL AND deletion_date <= ?1", [.real(now)])
    }

    /// The secret called `name`, or `nil` when there is none (or its window has passed).
    func secret(_ name: String) throws -> SecretRecord? {
        try connection.queryFirst(
            """
            SELECT name, deleted_date FROM secrets
            WHERE name = ?1 AND (deletion_date IS NULL OR deletion_date > ?2)
            """,
            [.text(name), .real(now)]
        ) { row in
            SecretRecord(name: row.text(0), deletedDate: row.optionalReal(1).map(Date.init(timeIntervalSince1970:)))
        }
    }

    /// The secret, which must exist.
    /// - Throws: ``StoreError/notFound``.
    func existingSecret(_ name: String) throws -> SecretRecord {
        guard let record = try secret(name) else {
            throw StoreError.notFound.with(message: "secret \(name) not found")
        }
        return record
    }

    /// The secret, which must exist and not be scheduled for deletion: the precondition of
    /// every read of a value and every write.
    /// - Throws: ``StoreError/notFound``, ``StoreError/scheduledForDeletion``.
    func liveSecret(_ name: String) throws -> SecretRecord {
        let record = try existingSecret(name)
        guard record.deletedDate == nil else {
            throw StoreError.scheduledForDeletion.with(message: "secret \(name) is scheduled for deletion")
        }
        return record
    }

    /// Inserts a new secret row.
    /// - Throws: ``StoreError/alreadyExists`` when the name is taken, even by a deleted secret.
    func insertSecret(_ name: String) throws {
        if let existing = try secret(name) {
            let detail = existing.deletedDate == nil ? "" : " (scheduled for deletion; restore it instead)"
            throw StoreError.alreadyExists.with(message: "secret \(name) already exists\(detail)")
        }
        try connection.run(
            "INSERT INTO secrets (name, created_date) VALUES (?1, ?2)", [.text(name), .real(now)])
    }

    /// Schedules deletion (`deletion` is when it becomes final), or cancels it with `nil`s.
    func setDeletion(of name: String, deletedDate: Double?, deletionDate: Double?) throws {
        try connection.run(
            "UPDATE secrets SET deleted_date = ?2, deletion_date = ?3 WHERE name = ?1",
            [.text(name), deletedDate.map(SQLiteValue.real) ?? .null, deletionDate.map(SQLiteValue.real) ?? .null]
        )
    }

    // MARK: tags

    /// The secret's tags.
    func tags(of name: String) throws -> [String: String] {
        let pairs = try connection.query(
            "SELECT key, value FROM secret_tags WHERE secret_name = ?1", [.text(name)]
        ) { row in (row.text(0), row.text(1)) }
        return Dictionary(pairs, uniquingKeysWith: { _, last in last })
    }

    /// Adds or overwrites tags.
    /// - Throws: ``StoreError/invalidRequest`` when the secret would have more than 50 tags.
    func setTags(_ tags: [String: String], on name: String) throws {
        for (key, value) in tags {
            try connection.run(
                """
                INSERT INTO secret_tags (secret_name, key, value) VALUES (?1, ?2, ?3)
                ON CONFLICT (secret_name, key) DO UPDATE SET value = excluded.value
                """,
                [.text(name), .text(key), .text(value)]
            )
        }
        let count = try connection.queryFirst(
            "SELECT count(*) FROM secret_tags WHERE secret_name = ?1", [.text(name)]
        ) { $0.integer(0) } ?? 0
        guard count <= SecretRules.maxTagsPerSecret else {
            // Throwing rolls the whole transaction back.
            throw StoreError.invalidRequest.with(message: "a secret has at most \(SecretRules.maxTagsPerSecret) tags")
        }
    }

    /// Removes tags by key; absent keys are ignored.
    func removeTags(_ keys: [String], from name: String) throws {
        for key in keys {
            try connection.run(
                "DELETE FROM secret_tags WHERE secret_name = ?1 AND key = ?2", [.text(name), .text(key)])
        }
    }
}

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
