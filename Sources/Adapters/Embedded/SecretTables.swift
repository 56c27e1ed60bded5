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
