import Foundation
import PayPulsePorts
import PayPulseTestSupport
import Testing

@testable import PayPulseEmbedded

/// A transaction that finds the file locked by another connection is run again under the
/// database's ``RetryPolicy``, with its waits, and gives up with `SQLITE_BUSY` when the
/// policy does.
@Suite("SQLite busy: whole-transaction retries under the retry policy")
struct BusyRetryTests {
    @Test("a write behind another connection's lock makes the policy's attempts, waiting its pinned waits")
    func busyWriteRetriesUnderThePolicy() async throws {
        try await withStateDirectory { directory in
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let path = directory + "/busy.sqlite3"
            let logs = LogCapture()
            let policy = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(150), maxDelay: .milliseconds(150), totalBudget: TestTime.unreachableBudget)
            // No busy timeout inside SQLite, so every wait is the policy's.
            let database = try SQLiteDatabase(path: path, logger: logs.logger, busyTimeoutMilliseconds: 0, busyRetry: policy, random: { 1 })
            let holder = try SQLiteConnection(path: path, busyTimeoutMilliseconds: 0)
            try holder.execute("BEGIN IMMEDIATE")

            let started = ContinuousClock.now
            let error = await #expect(throws: SQLiteError.self) { try await database.write { _ in 1 } }
            #expect(error?.isBusy == true)
            #expect(logs.lines(containingAnyOf: ["SQLite busy, retrying"]).count == 2)
            // random 1 pins each wait at its ceiling: two waits of 150 ms.
            #expect(ContinuousClock.now - started >= .milliseconds(300))

            try holder.execute("ROLLBACK")
            #expect(try await database.write { _ in 7 } == 7)
        }
    }
}
