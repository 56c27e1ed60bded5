import Foundation
import PayPulsePorts
import PayPulseTestSupport
import Testing

@testable import PayPulseEmbedded

/// What the contract suite cannot see of the embedded ledger: the file it lives in (a
/// version 1 file gains its table), its pruning, and a SQLite failure under it.
@Suite("Embedded security event ledger: schema, pruning, failures")
struct EmbeddedSecurityEventLedgerTests {
    @Test("a version 1 file, from before the ledger, gains security_events when opened, its data kept")
    func versionOneFileIsMigrated() async throws {
        try await withStateDirectory { directory in
            let first = try EmbeddedDatabase(stateDirectory: directory, logger: quietLogger)
            try await EmbeddedUserDirectory(database: first, logger: quietLogger)
                .putUser(UserRecord(userID: "u-1", name: "Jane", email: "jane@example.com", createdOn: "2024-11-01T10:00:00Z"))
            let side = try SQLiteConnection(path: first.path, busyTimeoutMilliseconds: 5_000)
            try side.execute("DROP TABLE security_events; PRAGMA user_version = 1")

            let reopened = try EmbeddedDatabase(stateDirectory: directory, logger: quietLogger)
            #expect(try side.queryFirst("PRAGMA user_version") { $0.integer(0) } == Int64(EmbeddedSchema.version))
            let ledger = EmbeddedSecurityEventLedger(database: reopened, logger: quietLogger)
            try await ledger.record("evt-1", until: Date().addingTimeInterval(60))
            #expect(try await ledger.contains("evt-1"))
            #expect(try await EmbeddedUserDirectory(database: reopened, logger: quietLogger).user(id: "u-1")?.name == "Jane")
        }
    }

    @Test("each record deletes a few expired rows, the oldest first, and never a live one")
    func recordPrunesExpiredRows() async throws {
        try await withStateDirectory { directory in
            let clock = FakeClock()
            let database = try EmbeddedDatabase(stateDirectory: directory, logger: quietLogger)
            let ledger = EmbeddedSecurityEventLedger(database: database, logger: quietLogger, now: clock.now)
            let start = clock.now()
            for index in 0..<20 { try await ledger.record("old-\(index)", until: start.addingTimeInterval(Double(10 + index))) }
            try await ledger.record("live", until: start.addingTimeInterval(86_400 * 3))
            let side = try SQLiteConnection(path: database.path, busyTimeoutMilliseconds: 5_000)
            let count = { try side.queryFirst("SELECT count(*) FROM security_events") { $0.integer(0) } ?? -1 }
            #expect(try count() == 21, "nothing had expired yet")

            clock.advance(days: 1)
            try await ledger.record("new-1", until: start.addingTimeInterval(86_400 * 3))
            let limit = EmbeddedSecurityEventLedger.pruneLimit
            #expect(try count() == Int64(22 - limit))
            let oldest = try side.query("SELECT jti FROM security_events WHERE jti LIKE 'old-%' ORDER BY expires_at") { $0.text(0) }
            #expect(oldest.first == "old-\(limit)", "the earliest expiries went first")

            for index in 2...4 { try await ledger.record("new-\(index)", until: start.addingTimeInterval(86_400 * 3)) }
            #expect(try side.query("SELECT jti FROM security_events ORDER BY jti") { $0.text(0) } == ["live", "new-1", "new-2", "new-3", "new-4"])
        }
    }

    @Test("a SQLite failure under the ledger (its table gone) is a StoreError for both calls")
    func sqliteFailureIsAStoreError() async throws {
        try await withStateDirectory { directory in
            let database = try EmbeddedDatabase(stateDirectory: directory, logger: quietLogger)
            let ledger = EmbeddedSecurityEventLedger(database: database, logger: quietLogger)
            try await ledger.record("evt-1", until: Date().addingTimeInterval(60))
            try SQLiteConnection(path: database.path, busyTimeoutMilliseconds: 5_000).execute("DROP TABLE security_events")

            await expectStoreError(.unavailable) { try await ledger.contains("evt-1") }
            await expectStoreError(.unavailable) { try await ledger.record("evt-2", until: Date().addingTimeInterval(60)) }
        }
    }
}
