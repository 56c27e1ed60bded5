#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PayPulsePorts

/// The ``SecurityEventLedger`` in the embedded SQLite file: the `security_events` table
/// (`jti` primary key, `expires_at` in seconds since 1970), and `security_event_latest`, each
/// Google account's latest event for the local console (one row per account, replaced by a
/// later one, kept as long as the file).
///
/// A record whose `expires_at` has come is absent: ``contains(_:)`` does not see it and
/// ``record(_:until:)`` replaces it. Each record also deletes a few expired rows, so the
/// table stays about as large as the events of one expiry period without a sweeper.
package struct EmbeddedSecurityEventLedger: SecurityEventLedger {
    /// How many expired rows one ``record(_:until:)`` deletes at most: more than one, so
    /// pruning outpaces recording; few, so a record stays one short transaction.
    static let pruneLimit = 8

    let database: EmbeddedDatabase
    let logger: Logger
    let now: @Sendable () -> Date

    /// A ledger on an open database, shared with the other embedded stores.
    /// - Parameters:
    ///   - database: The open embedded database.
    ///   - logger: Receives debug lines with event ids (a `jti` is not a secret).
    ///   - now: The clock records expire by; tests pass a fake one.
    package init(database: EmbeddedDatabase, logger: Logger, now: @escaping @Sendable () -> Date = { Date() }) {
        self.database = database
        self.logger = logger
        self.now = now
    }

    /// Whether `jti` was recorded and its record has not expired; a claim is not a record.
    /// - Throws: ``StoreError/invalidRequest`` for an empty `jti`; ``StoreError/unavailable``
    ///   when the database cannot be read.
    package func contains(_ jti: String) async throws -> Bool {
        try Self.check(jti)
        let now = self.now().timeIntervalSince1970
        return try await database.read { connection in
            try connection.queryFirst(
                "SELECT 1 FROM security_events WHERE jti = ?1 AND expires_at > ?2", [.text(jti), .real(now)]
            ) { _ in true } ?? false
        }
    }

    /// Whether a live record of `jti`, or a live claim by anyone but `claimant`, is there.
    private static func isLive(_ jti: String, now: Double, except claimant: String, in connection: SQLiteConnection) throws -> Bool {
        try connection.queryFirst(
            """
            SELECT 1 FROM security_events WHERE jti = ?1 AND expires_at > ?2
            UNION ALL SELECT 1 FROM security_event_claims WHERE jti = ?1 AND expires_at > ?2 AND claimant IS NOT ?3
            """, [.text(jti), .real(now), .text(claimant)]
        ) { _ in true } ?? false
    }

    /// Claims `jti` for `claimant` until `expiry` unless a live record or another claimant's
    /// live claim is there, in one transaction.
    /// - Returns: whether `claimant` holds it now.
    /// - Throws: ``StoreError/invalidRequest`` for an empty `jti`; ``StoreError/unavailable``.
    package func claim(_ jti: String, by claimant: String, until expiry: Date) async throws -> Bool {
        try Self.check(jti)
        let now = self.now().timeIntervalSince1970
        return try await database.write { connection in
            guard try !Self.isLive(jti, now: now, except: claimant, in: connection) else { return false }
            try connection.run(
                "INSERT OR REPLACE INTO security_event_claims (jti, claimant, expires_at) VALUES (?1, ?2, ?3)",
                [.text(jti), .text(claimant), .real(expiry.timeIntervalSince1970)]
            )
            return true
        }
    }

    /// Removes `jti`'s claim if `claimant` holds it.
    /// - Throws: ``StoreError/unavailable`` when the database cannot be written.
    package func release(_ jti: String, by claimant: String) async throws {
        try Self.check(jti)
        _ = try await database.write { connection in
            try connection.run("DELETE FROM security_event_claims WHERE jti = ?1 AND claimant = ?2", [.text(jti), .text(claimant)])
        }
    }

    /// Records `jti` until `expiry`, unless a record that has not expired is there (it
    /// stays, with its own expiry); then deletes a few expired rows of other events.
    /// - Throws: ``StoreError/invalidRequest`` for an empty `jti`; ``StoreError/unavailable``
    ///   when the database cannot be written.
    package func record(_ jti: String, until expiry: Date) async throws {
        try await record(jti, events: [], until: expiry)
    }

    /// Records `jti` as ``record(_:until:)`` does and, in the same transaction when `jti` was
    /// not recorded, each of `events` as its account's latest unless a later one is there.
    /// - Throws: ``StoreError/invalidRequest`` for an empty `jti`; ``StoreError/unavailable``
    ///   when the database cannot be written.
    package func record(_ jti: String, events: [RecordedSecurityEvent], until expiry: Date) async throws {
        try Self.check(jti)
        let now = self.now().timeIntervalSince1970, expiresAt = expiry.timeIntervalSince1970
        let written = try await database.write { connection in
            // The conflict clause is the conditional write: an expired row is replaced, a live one kept.
            let written = try connection.run(
                """
                INSERT INTO security_events (jti, expires_at) VALUES (?1, ?2)
                ON CONFLICT (jti) DO UPDATE SET expires_at = excluded.expires_at WHERE security_events.expires_at <= ?3
                """,
                [.text(jti), .real(expiresAt), .real(now)]
            ) > 0
            try connection.run("DELETE FROM security_event_claims WHERE jti = ?1 OR expires_at <= ?2", [.text(jti), .real(now)])
            for event in events where written {
                try connection.run(
                    """
                    INSERT INTO security_event_latest (subject, event_type, jti, received_at) VALUES (?1, ?2, ?3, ?4)
                    ON CONFLICT (subject) DO UPDATE SET event_type = excluded.event_type, jti = excluded.jti,
                        received_at = excluded.received_at WHERE excluded.received_at >= security_event_latest.received_at
                    """,
                    [.text(event.subject), .text(event.type), .text(jti), .real(event.receivedAt.timeIntervalSince1970)]
                )
            }
            try connection.run(
                """
                DELETE FROM security_events WHERE rowid IN
                    (SELECT rowid FROM security_events WHERE expires_at <= ?1 ORDER BY expires_at LIMIT ?2)
                """,
                [.real(now), .integer(Int64(Self.pruneLimit))]
            )
            return written
        }
        logger.debug(written ? "security event recorded" : "security event already recorded", metadata: ["jti": "\(jti)"])
    }

    /// The latest event recorded for each of `subjects` that has one.
    /// - Throws: ``StoreError/unavailable`` when the database cannot be read.
    package func latestEvents(of subjects: [String]) async throws -> [String: RecordedSecurityEvent]? {
        try await database.read { connection in
            var latest: [String: RecordedSecurityEvent] = [:]
            for subject in Set(subjects) {
                latest[subject] = try connection.queryFirst(
                    "SELECT event_type, received_at FROM security_event_latest WHERE subject = ?1", [.text(subject)]
                ) { row in RecordedSecurityEvent(type: row.text(0), subject: subject, receivedAt: Date(timeIntervalSince1970: row.real(1))) }
            }
            return latest
        }
    }

    /// An empty `jti` is refused here as DynamoDB refuses an empty key, so every ledger agrees.
    private static func check(_ jti: String) throws {
        if jti.isEmpty { throw StoreError.invalidRequest.with(message: "an empty jti") }
    }
}
