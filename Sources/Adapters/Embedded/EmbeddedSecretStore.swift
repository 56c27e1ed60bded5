#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PayPulsePorts

/// A ``SecretStore`` in the embedded SQLite file, with the semantics of AWS Secrets Manager
/// (see ``SecretStore``): versions named by client request token, stage labels unique per
/// secret, compare-and-swap on `AWSCURRENT`, recoverable deletion, prefix listing, tags.
///
/// Each call is one SQLite transaction, so ``replaceCurrent(name:expected:value:)``
/// is atomic even against other processes writing the same file. Stage-less versions
/// beyond the newest ten are pruned. Secret values never reach the logger: only names and
/// version ids, at debug level.
package struct EmbeddedSecretStore: SecretStore {
    let database: EmbeddedDatabase
    let logger: Logger
    let now: @Sendable () -> Date

    /// A store on an open database, shared with other adapters (e.g. ``EmbeddedUserDirectory``).
    /// - Parameters:
    ///   - database: The open embedded database.
    ///   - logger: Receives debug lines with secret names and version ids, never values.
    ///   - now: The clock for version and deletion dates; tests pass a fake one to move past
    ///     a recovery window.
    package init(database: EmbeddedDatabase, logger: Logger, now: @escaping @Sendable () -> Date = { Date() }) {
        self.database = database
        self.logger = logger
        self.now = now
    }

    /// A store on its own connection to `<stateDirectory>/paypulse.sqlite3`.
    /// - Parameters:
    ///   - stateDirectory: The state directory, created 0700 when missing.
    ///   - logger: Receives debug lines with secret names and version ids, never values.
    ///   - now: The clock for version and deletion dates.
    /// - Throws: ``StoreError/unavailable`` or ``StoreError/corrupt`` when the database
    ///   cannot be opened (see ``EmbeddedDatabase/init(stateDirectory:logger:)``).
    package init(
        stateDirectory: String, logger: Logger, now: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        self.init(database: try EmbeddedDatabase(stateDirectory: stateDirectory, logger: logger), logger: logger, now: now)
    }

    /// Runs `body` in a write transaction after purging secrets whose window has passed.
    @discardableResult
    func write<T: Sendable>(_ body: @escaping @Sendable (SecretTables) throws -> T) async throws -> T {
        let now = self.now().timeIntervalSince1970
        return try await database.write { connection in
            let tables = SecretTables(connection: connection, now: now)
            try tables.purgeExpired()
            return try body(tables)
        }
    }

    /// Runs `body` in a read transaction.
    func read<T: Sendable>(_ body: @escaping @Sendable (SecretTables) throws -> T) async throws -> T {
        let now = self.now().timeIntervalSince1970
        return try await database.read { connection in
            try body(SecretTables(connection: connection, now: now))
        }
    }

    /// A stored date (seconds since 1970) as a `Date`.
    static func date(_ seconds: Double) -> Date { Date(timeIntervalSince1970: seconds) }
}

extension EmbeddedSecretStore {
    /// Reads the version holding `stage`.
    /// - Throws: ``StoreError/notFound`` when the secret or stage does not exist,
    ///   ``StoreError/scheduledForDeletion`` when the secret is deleted.
    package func getSecretValue(name: String, stage: SecretStage) async throws -> SecretValue {
        try await read { tables in
            _ = try tables.liveSecret(name)
            guard let id = try tables.holder(of: stage, in: name) else {
                throw StoreError.notFound.with(message: "secret \(name) has no version with stage \(stage)")
            }
            return try Self.value(id, of: name, in: tables)
        }
    }

    /// Reads version `versionID`.
    /// - Throws: ``StoreError/notFound`` when the secret or version does not exist,
    ///   ``StoreError/scheduledForDeletion`` when the secret is deleted.
    package func getSecretValue(name: String, versionID: SecretVersionID) async throws -> SecretValue {
        try await read { tables in
            _ = try tables.liveSecret(name)
            return try Self.value(versionID, of: name, in: tables)
        }
    }

    /// Describes the secret, deleted or not: tags, deletion date, the stages of each version.
    /// - Throws: ``StoreError/notFound`` when there is no such secret.
    package func describeSecret(name: String) async throws -> SecretDescription {
        try await read { tables in
            let record = try tables.existingSecret(name)
            return SecretDescription(
                name: record.name,
                tags: try tables.tags(of: name),
                deletedDate: record.deletedDate,
                versionStages: try tables.stagesByVersion(in: name)
            )
        }
    }

    private static func value(_ id: SecretVersionID, of name: String, in tables: SecretTables) throws -> SecretValue {
        guard let version = try tables.version(id, of: name) else {
            throw StoreError.notFound.with(message: "secret \(name) has no version \(id)")
        }
        return SecretValue(
            name: name, versionID: id, string: version.value,
            stages: try tables.stages(of: id, in: name), createdDate: version.createdDate
        )
    }
}

extension EmbeddedSecretStore {
    /// Creates a secret whose first version, `clientRequestToken`, holds `AWSCURRENT`.
    /// - Throws: ``StoreError/alreadyExists`` when the name is taken (also by a secret
    ///   scheduled for deletion), ``StoreError/invalidRequest`` for a bad name, value,
    ///   token or tag.
    package func createSecret(
        name: String, value: String, tags: [String: String], clientRequestToken: String
    ) async throws -> SecretVersionID {
        try SecretRules.check(name: name)
        try SecretRules.check(value: value)
        try SecretRules.check(clientRequestToken: clientRequestToken)
        try SecretRules.check(tags: tags)
        let id = SecretVersionID(clientRequestToken)
        try await write { tables in
            try tables.insertSecret(name)
            _ = try tables.insertVersion(id, value: value, of: name)
            try tables.attach(.current, to: id, in: name)
            try tables.setTags(tags, on: name)
        }
        logger.debug("secret created", metadata: ["secret": "\(name)", "version": "\(id)"])
        return id
    }

    /// Stores version `clientRequestToken` with `stages`, moving each label from the version
    /// that held it. A retry with the same token and value changes nothing.
    /// - Throws: ``StoreError/notFound``, ``StoreError/scheduledForDeletion``,
    ///   ``StoreError/alreadyExists`` when the token names a version with another value,
    ///   ``StoreError/invalidRequest`` for a bad value, token or stage.
    package func putSecretValue(
        name: String, value: String, clientRequestToken: String, stages: [SecretStage]
    ) async throws -> SecretVersionID {
        try SecretRules.check(value: value)
        try SecretRules.check(clientRequestToken: clientRequestToken)
        for stage in stages { try SecretRules.check(stage: stage) }
        let id = SecretVersionID(clientRequestToken)
        let inserted = try await write { tables in
            _ = try tables.liveSecret(name)
            guard try tables.insertVersion(id, value: value, of: name) else { return false }
            for stage in stages { try tables.attach(stage, to: id, in: name) }
            try tables.prune(name)
            return true
        }
        logger.debug(
            inserted ? "secret version stored" : "secret version already stored",
            metadata: ["secret": "\(name)", "version": "\(id)", "stages": "\(stages)"]
        )
        return id
    }

    /// Stores `value` as a new version and moves `AWSCURRENT` to it, in one transaction,
    /// only if `expected` still holds `AWSCURRENT`.
    /// - Throws: ``StoreError/conflict`` when `expected` no longer holds `AWSCURRENT` (then
    ///   nothing is written), ``StoreError/notFound``, ``StoreError/scheduledForDeletion``,
    ///   ``StoreError/invalidRequest`` for a bad value.
    package func replaceCurrent(name: String, expected: SecretVersionID, value: String) async throws -> SecretVersionID {
        try SecretRules.check(value: value)
        let id = SecretVersionID.random()
        do {
            try await write { tables in
                _ = try tables.liveSecret(name)
                let current = try tables.holder(of: .current, in: name)
                guard current == expected else {
                    throw StoreError.conflict.with(message: "AWSCURRENT of \(name) is no longer on \(expected)")
                }
                _ = try tables.insertVersion(id, value: value, of: name)
                try tables.attach(.current, to: id, in: name)
                try tables.prune(name)
            }
        } catch let error as StoreError where error == .conflict {
            logger.debug("compare-and-swap lost", metadata: ["secret": "\(name)", "expected": "\(expected)"])
            throw error
        }
        logger.debug(
            "compare-and-swap won", metadata: ["secret": "\(name)", "from": "\(expected)", "version": "\(id)"])
        return id
    }
}

extension EmbeddedSecretStore {
    /// Moves `stage` to `moveTo`, removing it from `removeFrom`; with `moveTo` `nil` the stage
    /// is only removed. This is the compare-and-swap Secrets Manager offers.
    /// - Throws: ``StoreError/conflict`` when `removeFrom` does not hold the stage, or when it
    ///   is `nil` while another version than `moveTo` holds it (as AWS, which then requires
    ///   `RemoveFromVersionId`); ``StoreError/notFound`` when the secret or `moveTo` does not
    ///   exist; ``StoreError/scheduledForDeletion``; ``StoreError/invalidRequest`` when both
    ///   versions are `nil` or `AWSCURRENT` would be removed without a new holder.
    package func updateSecretVersionStage(
        name: String, stage: SecretStage, moveTo: SecretVersionID?, removeFrom: SecretVersionID?
    ) async throws {
        try SecretRules.check(stage: stage)
        guard moveTo != nil || removeFrom != nil else {
            throw StoreError.invalidRequest.with(message: "give moveTo, removeFrom or both")
        }
        if moveTo == nil, stage == .current {
            throw StoreError.invalidRequest.with(message: "AWSCURRENT can be moved, not removed")
        }
        try await write { tables in
            _ = try tables.liveSecret(name)
            let holder = try tables.holder(of: stage, in: name)
            if let removeFrom, holder != removeFrom {
                throw StoreError.conflict.with(message: "version \(removeFrom) of \(name) does not hold \(stage)")
            }
            guard let moveTo else {
                try tables.detach(stage, in: name)
                return
            }
            if removeFrom == nil, let holder, holder != moveTo {
                throw StoreError.conflict.with(message: "\(stage) of \(name) is held by another version")
            }
            guard try tables.version(moveTo, of: name) != nil else {
                throw StoreError.notFound.with(message: "secret \(name) has no version \(moveTo)")
            }
            try tables.attach(stage, to: moveTo, in: name)
            try tables.prune(name)
        }
        logger.debug(
            "secret stage moved",
            metadata: [
                "secret": "\(name)", "stage": "\(stage)",
                "from": "\(removeFrom?.rawValue ?? "-")", "to": "\(moveTo?.rawValue ?? "-")",
            ]
        )
    }
}

extension EmbeddedSecretStore {
    /// Schedules the secret for deletion `recoveryWindowDays` from now. Until then it can be
    /// described and restored but not read or written; afterwards it is gone for good.
    /// - Returns: the date the deletion becomes final.
    /// - Throws: ``StoreError/invalidRequest`` unless the window is 7–30 days,
    ///   ``StoreError/notFound``, ``StoreError/scheduledForDeletion`` when already deleted.
    package func deleteSecret(name: String, recoveryWindowDays: Int) async throws -> Date {
        try await scheduleDeletion(of: name, recoveryWindowDays: recoveryWindowDays, ifCurrent: nil)
    }

    /// Checks that `expected` holds `AWSCURRENT` and deletes in one transaction: a newer
    /// value is never deleted, not even for a moment.
    package func deleteSecret(name: String, recoveryWindowDays: Int, ifCurrent expected: SecretVersionID) async throws -> Date {
        try await scheduleDeletion(of: name, recoveryWindowDays: recoveryWindowDays, ifCurrent: expected)
    }

    /// The check and the deletion are one transaction.
    package var deletesConditionally: Bool { true }

    private func scheduleDeletion(of name: String, recoveryWindowDays: Int, ifCurrent expected: SecretVersionID?) async throws -> Date {
        try SecretRules.check(recoveryWindowDays: recoveryWindowDays)
        let deletionDate = try await write { tables in
            _ = try tables.liveSecret(name)
            if let expected, try tables.holder(of: .current, in: name) != expected {
                throw StoreError.conflict.with(message: "AWSCURRENT of \(name) is no longer on \(expected)")
            }
            let deletionDate = tables.now + Double(recoveryWindowDays) * 86_400
            try tables.setDeletion(of: name, deletedDate: tables.now, deletionDate: deletionDate)
            return deletionDate
        }
        logger.debug("secret scheduled for deletion", metadata: ["secret": "\(name)", "days": "\(recoveryWindowDays)"])
        return Self.date(deletionDate)
    }

    /// Cancels a scheduled deletion; a secret that is not deleted is left as it is.
    /// - Throws: ``StoreError/notFound`` when there is no such secret (or its window passed).
    package func restoreSecret(name: String) async throws {
        try await write { tables in
            _ = try tables.existingSecret(name)
            try tables.setDeletion(of: name, deletedDate: nil, deletionDate: nil)
        }
        logger.debug("secret restored", metadata: ["secret": "\(name)"])
    }

    /// Adds or overwrites tags.
    /// - Throws: ``StoreError/notFound``, ``StoreError/scheduledForDeletion``,
    ///   ``StoreError/invalidRequest`` for a bad tag or more than 50 tags in all.
    package func tagResource(name: String, tags: [String: String]) async throws {
        try SecretRules.check(tags: tags)
        try await write { tables in
            _ = try tables.liveSecret(name)
            try tables.setTags(tags, on: name)
        }
        logger.debug("secret tagged", metadata: ["secret": "\(name)", "keys": "\(tags.keys.sorted())"])
    }

    /// Removes tags by key; absent keys are ignored.
    /// - Throws: ``StoreError/notFound``, ``StoreError/scheduledForDeletion``.
    package func untagResource(name: String, tagKeys: [String]) async throws {
        try await write { tables in
            _ = try tables.liveSecret(name)
            try tables.removeTags(tagKeys, from: name)
        }
        logger.debug("secret untagged", metadata: ["secret": "\(name)", "keys": "\(tagKeys)"])
    }
}

extension EmbeddedSecretStore {
    /// Lists secrets whose name starts with `namePrefix` (case-sensitive), ordered by name.
    /// - Parameters:
    ///   - namePrefix: The prefix; "" lists everything.
    ///   - tagValue: When given, only secrets with a tag of exactly this value (found
    ///     through the index on tag values, not by scanning).
    ///   - includePlannedDeletion: Whether secrets scheduled for deletion are listed.
    ///   - maxResults: The page size, 1 to 100.
    ///   - nextToken: The previous page's ``SecretPage/nextToken``, or `nil` for the first page.
    /// - Throws: ``StoreError/invalidRequest`` for a bad page size or a token this store
    ///   did not issue.
    package func listSecrets(
        namePrefix: String, tagValue: String?, includePlannedDeletion: Bool, maxResults: Int, nextToken: String?
    ) async throws -> SecretPage {
        try SecretRules.check(maxResults: maxResults)
        let after = try nextToken.map(ListingToken.decode) ?? ""
        return try await read { tables in
            // One row more than the page shows whether another page follows.
            // `name >= prefix` lets the primary key index seek; substr checks the prefix
            // byte for byte (LIKE would ignore case).
            let rows = try tables.connection.query(
                """
                SELECT name, deleted_date,
                  (SELECT max(created_date) FROM secret_versions WHERE secret_name = secrets.name)
                FROM secrets
                WHERE name >= ?1 AND substr(name, 1, length(?1)) = ?1 AND name > ?2
                  AND (?3 OR deleted_date IS NULL)
                  AND (deletion_date IS NULL OR deletion_date > ?4)
                  AND (?6 IS NULL OR name IN (SELECT secret_name FROM secret_tags WHERE value = ?6))
                ORDER BY name LIMIT ?5
                """,
                [
                    .text(namePrefix), .text(after), .integer(includePlannedDeletion ? 1 : 0),
                    .real(tables.now), .integer(Int64(maxResults) + 1), tagValue.map { .text($0) } ?? .null,
                ]
            ) { row in
                SecretRecord(name: row.text(0), deletedDate: row.optionalReal(1).map(Self.date), lastChangedDate: row.optionalReal(2).map(Self.date))
            }
            let page = rows.prefix(maxResults)
            let secrets = try page.map { record in
                SecretSummary(
                    name: record.name, tags: try tables.tags(of: record.name), lastChangedDate: record.lastChangedDate, deletedDate: record.deletedDate,
                    currentVersion: try tables.holder(of: .current, in: record.name)
                )
            }
            let token = rows.count > maxResults ? page.last.map { ListingToken.encode(after: $0.name) } : nil
            return SecretPage(secrets: secrets, nextToken: token)
        }
    }
}
