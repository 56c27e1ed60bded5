#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulsePorts

/// The lifecycle events' bus in the embedded SQLite file: the `lifecycle_events` table, one
/// row per event id however often it is put, for `paypulse events` and the console
/// (`paypulse serve --events-webhook` hands each to a webhook besides).
package struct EmbeddedLifecycleEvents: LifecycleEventBus {
    /// One published event as the table keeps it.
    package struct Row: Sendable, Equatable {
        /// The event's id.
        package var eventID: String
        /// Its `DetailType`.
        package var detailType: String
        /// Its detail, JSON text.
        package var detail: String
        /// When it was first put.
        package var publishedAt: Date
    }

    let database: EmbeddedDatabase
    let now: @Sendable () -> Date

    /// The events table of `database`.
    package init(database: EmbeddedDatabase, now: @escaping @Sendable () -> Date = { Date() }) {
        self.database = database
        self.now = now
    }

    package var maxEntriesPerPut: Int { 10 }

    /// The budget is not needed: the table is a local file.
    package func put(_ entries: [LifecycleBusEntry], within budget: Duration) async throws(LifecycleBusFailure) -> [LifecycleBusFailure?] {
        let at = now().timeIntervalSince1970
        do {
            try await database.write { connection in
                for entry in entries {
                    try connection.run(
                        "INSERT INTO lifecycle_events (event_id, detail_type, detail, published_at) VALUES (?1, ?2, ?3, ?4) ON CONFLICT (event_id) DO NOTHING",
                        [.text(entry.id), .text(entry.detailType), .text(entry.detail), .real(at)]
                    )
                }
            }
        } catch {
            throw LifecycleBusFailure(code: "\(error)", refused: false)
        }
        return entries.map { _ in nil }
    }

    /// The latest `limit` events, newest first.
    /// - Throws: ``StoreError/unavailable`` when the file cannot be read.
    package func recent(limit: Int) async throws -> [Row] {
        try await database.read { connection in
            try connection.query(
                "SELECT event_id, detail_type, detail, published_at FROM lifecycle_events ORDER BY seq DESC LIMIT ?1", [.integer(Int64(limit))]
            ) { row in
                Row(eventID: row.text(0), detailType: row.text(1), detail: row.text(2), publishedAt: Date(timeIntervalSince1970: row.real(3)))
            }
        }
    }
}
