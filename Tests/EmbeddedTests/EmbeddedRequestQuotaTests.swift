import Foundation
import PayPulsePorts
import PayPulseTestSupport
import Testing

@testable import PayPulseEmbedded

/// What the contract suite cannot see of the embedded request quota: a version 3 file gains
/// its table, its rows are pruned once their window has passed, and a row it did not write
/// is a corrupt store, not a crash.
@Suite("Embedded request quota: schema, pruning, a corrupt row")
struct EmbeddedRequestQuotaTests {
    @Test("a version 3 file, from before the quota, gains request_quotas when opened")
    func versionThreeFileIsMigrated() async throws {
        try await withStateDirectory { directory in
            let first = try EmbeddedDatabase(stateDirectory: directory, logger: quietLogger)
            let side = try SQLiteConnection(path: first.path, busyTimeoutMilliseconds: 5_000)
            try side.execute("DROP TABLE request_quotas; PRAGMA user_version = 3")
            let reopened = try EmbeddedDatabase(stateDirectory: directory, logger: quietLogger)
            #expect(try side.queryFirst("PRAGMA user_version") { $0.integer(0) } == Int64(EmbeddedSchema.version))
            #expect(try await EmbeddedRequestQuota(database: reopened, rule: QuotaRule(limit: 1)).take(for: "u-1", at: 1_800_000_000) == .taken)
        }
    }

    @Test("each taken use deletes a few rows whose window has passed, the oldest first, never a live one")
    func takesPruneExpiredRows() async throws {
        try await withStateDirectory { directory in
            let database = try EmbeddedDatabase(stateDirectory: directory, logger: quietLogger)
            let quota = EmbeddedRequestQuota(database: database, rule: QuotaRule(limit: 3, span: 60))
            let start = 1_800_000_000.0
            for index in 0..<20 { #expect(try await quota.take(for: "old-\(index)", at: start + Double(index)) == .taken) }
            let side = try SQLiteConnection(path: database.path, busyTimeoutMilliseconds: 5_000)
            let users = { try side.query("SELECT user_id FROM request_quotas ORDER BY expires_at") { $0.text(0) } }
            #expect(try users().count == 20)
            // At start + 70 the windows of old-0 to old-10 have passed: the take deletes the
            // first eight of them, the next take the other three.
            let limit = EmbeddedRequestQuota.pruneLimit
            #expect(try await quota.take(for: "new", at: start + 70) == .taken)
            #expect(try users().first == "old-\(limit)" && users().count == 21 - limit)
            #expect(try await quota.take(for: "new", at: start + 70) == .taken)
            #expect(try users().first == "old-11" && users().count == 10)
            // A refused take writes nothing, and so prunes nothing.
            #expect(try await quota.take(for: "new", at: start + 70) == .taken)
            #expect(try await quota.take(for: "new", at: start + 90) == .exhausted(retryAfter: 40))
            #expect(try users().count == 10)
        }
    }

    @Test("a row that holds no times is a corrupt store, and another user's takes go on")
    func corruptRowIsAStoreError() async throws {
        try await withStateDirectory { directory in
            let database = try EmbeddedDatabase(stateDirectory: directory, logger: quietLogger)
            let side = try SQLiteConnection(path: database.path, busyTimeoutMilliseconds: 5_000)
            try side.execute("INSERT INTO request_quotas (user_id, uses, expires_at) VALUES ('broken', 'yesterday', 1e12)")
            let quota = EmbeddedRequestQuota(database: database, rule: QuotaRule(limit: 3))
            await #expect(throws: StoreError.corrupt) { try await quota.take(for: "broken", at: 1_800_000_000) }
            #expect(try await quota.take(for: "other", at: 1_800_000_000) == .taken)
        }
    }
}
