#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulsePorts

/// ``GoogleAccountWords`` in the embedded SQLite file: the `google_account_words` table, one
/// row per account and kind holding the latest `iat`, each row written only forward. Rows
/// older than ``googleAccountWordsKeptFor`` are pruned a few at a time by each record.
package struct EmbeddedGoogleAccountWords: GoogleAccountWords {
    let database: EmbeddedDatabase
    let now: @Sendable () -> Date

    /// The words in an open database, shared with the other embedded stores.
    package init(database: EmbeddedDatabase, now: @escaping @Sendable () -> Date = { Date() }) {
        self.database = database
        self.now = now
    }

    package func word(of subject: String) async throws -> GoogleAccountWord {
        try await database.read { connection in
            var issued: [GoogleAccountWord.Kind: Date] = [:]
            let rows = try connection.query("SELECT kind, issued_at FROM google_account_words WHERE subject = ?1", [.text(subject)]) { row in
                (row.text(0), row.real(1))
            }
            for (raw, seconds) in rows {
                guard let kind = GoogleAccountWord.Kind(rawValue: raw) else {
                    throw StoreError.corrupt.with(message: "Google's word on an account has an unknown kind")
                }
                issued[kind] = Date(timeIntervalSince1970: seconds)
            }
            return GoogleAccountWord(issuedAt: issued)
        }
    }

    package func record(_ kind: GoogleAccountWord.Kind, issuedAt: Date, for subject: String) async throws {
        guard !subject.isEmpty else { throw StoreError.invalidRequest.with(message: "an empty Google account") }
        let now = self.now().timeIntervalSince1970
        _ = try await database.write { connection in
            // A state event replaces the other state unless that one is later.
            if let other = kind.otherState {
                let later = try connection.queryFirst(
                    "SELECT 1 FROM google_account_words WHERE subject = ?1 AND kind = ?2 AND issued_at > ?3",
                    [.text(subject), .text(other.rawValue), .real(issuedAt.timeIntervalSince1970)]
                ) { _ in true } ?? false
                if later {
                    try connection.run(
                        "UPDATE google_account_words SET recorded_at = ?3 WHERE subject = ?1 AND kind = ?2", [.text(subject), .text(other.rawValue), .real(now)]
                    )
                    return
                }
                try connection.run("DELETE FROM google_account_words WHERE subject = ?1 AND kind = ?2", [.text(subject), .text(other.rawValue)])
            }
            // Recorded again even when a later iat stays, so the refresh run applies it once more.
            try connection.run(
                """
                INSERT INTO google_account_words (subject, kind, issued_at, recorded_at) VALUES (?1, ?2, ?3, ?4)
                ON CONFLICT (subject, kind) DO UPDATE SET issued_at = max(issued_at, excluded.issued_at), recorded_at = excluded.recorded_at
                """,
                [.text(subject), .text(kind.rawValue), .real(issuedAt.timeIntervalSince1970), .real(now)]
            )
            try connection.run(
                """
                DELETE FROM google_account_words WHERE rowid IN
                    (SELECT rowid FROM google_account_words WHERE recorded_at <= ?1 ORDER BY recorded_at LIMIT 8)
                """,
                [.real(now - googleAccountWordsKeptFor)]
            )
        }
    }

    package func accounts(spokenOfSince date: Date) async throws -> [String] {
        try await database.read { connection in
            try connection.query(
                "SELECT DISTINCT subject FROM google_account_words WHERE recorded_at >= ?1 ORDER BY subject", [.real(date.timeIntervalSince1970)]
            ) { row in row.text(0) }
        }
    }
}
