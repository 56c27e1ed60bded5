import Dispatch
import Logging
import PayPulsePorts

/// One SQLite connection behind a serial dispatch queue.
///
/// Every SQLite call blocks, so none runs on the Swift concurrency pool: callers `await`
/// a continuation that the queue resumes. Writers in other connections or processes are
/// handled by WAL mode, a busy timeout, `BEGIN IMMEDIATE` write transactions (the write
/// lock is taken up front, so a transaction never fails half-way on an upgrade) and a
/// few whole-transaction retries under ``RetryPolicy/sqliteBusy`` when SQLite still
/// reports `SQLITE_BUSY`.
///
/// Those retries block the queue's thread while they wait
/// (``RetryPolicy/runBlocking(_:willRetry:random:sleep:)``) rather than suspend: that thread
/// is not one of the concurrency pool's, so no task starves; the transaction must run whole
/// on the queue that owns the connection; and start-up (`init`, ``synchronously(_:)``) has
/// no task to suspend. Such a wait is rare (SQLite's own busy timeout has waited first) and
/// at most 200 ms.
final class SQLiteDatabase: @unchecked Sendable {
    // @unchecked: `connection` is only touched on `queue`.
    private let connection: SQLiteConnection
    private let queue: DispatchQueue
    private let logger: Logger
    private let busyRetry: RetryPolicy
    private let random: @Sendable () -> Double

    /// How long SQLite itself waits for another connection's lock.
    static let busyTimeoutMilliseconds: Int32 = 5_000

    /// Opens the database at `path` and applies the connection settings.
    ///
    /// Runs synchronously on the caller's thread: it is meant for start-up.
    /// - Parameters:
    ///   - path: The database file.
    ///   - logger: Where the busy retries are logged (debug).
    ///   - busyTimeoutMilliseconds: How long SQLite itself waits for a lock, per attempt.
    ///   - busyRetry: How a transaction that still found the file busy is tried again.
    ///   - random: The jitter source of those waits, `0...1` (tests pin it).
    init(
        path: String, logger: Logger, busyTimeoutMilliseconds: Int32 = SQLiteDatabase.busyTimeoutMilliseconds,
        busyRetry: RetryPolicy = .sqliteBusy, random: @escaping @Sendable () -> Double = { Double.random(in: 0...1) }
    ) throws {
        self.connection = try SQLiteConnection(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        self.queue = DispatchQueue(label: "paypulse.embedded.sqlite")
        self.logger = logger
        self.busyRetry = busyRetry
        self.random = random
        let connection = self.connection
        // journal_mode needs a brief exclusive lock the first time; retry like a transaction.
        try retryingBusy { try connection.execute("PRAGMA journal_mode = WAL") }
        try connection.execute("PRAGMA foreign_keys = ON")
        try connection.execute("PRAGMA synchronous = FULL")
    }

    /// Runs `body` in a `BEGIN IMMEDIATE` transaction on the queue; commits when it returns,
    /// rolls back when it throws. `body` may run more than once if the database is busy.
    @discardableResult
    func write<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try await onQueue { database in try database.transaction(begin: "BEGIN IMMEDIATE", body) }
    }

    /// Runs `body` in a read transaction (one consistent snapshot) on the queue.
    func read<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try await onQueue { database in try database.transaction(begin: "BEGIN", body) }
    }

    /// Runs `body` on the queue without a transaction, e.g. schema set-up.
    func synchronously<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try queue.sync { try retryingBusy { try body(connection) } }
    }

    private func onQueue<T: Sendable>(
        _ work: @escaping @Sendable (SQLiteDatabase) throws -> T
    ) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try work(self) })
            }
        }
    }

    private func transaction<T>(begin: String, _ body: (SQLiteConnection) throws -> T) throws -> T {
        try retryingBusy {
            do {
                try connection.execute(begin)
                let value = try body(connection)
                try connection.execute("COMMIT")
                return value
            } catch {
                if connection.isInTransaction { try? connection.execute("ROLLBACK") }
                throw error
            }
        }
    }

    /// Runs `body` again, after a wait, while it fails with `SQLITE_BUSY`.
    private func retryingBusy<T>(_ body: () throws -> T) throws -> T {
        do {
            return try busyRetry.runBlocking({ _ -> AttemptResult<T, any Error> in
                do {
                    return .success(try body())
                } catch let error as SQLiteError where error.isBusy {
                    return .failure(error, retryable: true)
                } catch {
                    return .failure(error, retryable: false)
                }
            }, willRetry: { attempt, error, wait in
                logger.debug(
                    "SQLite busy, retrying",
                    metadata: ["attempt": "\(attempt)", "code": "\((error as? SQLiteError)?.code ?? 0)", "delay_ms": "\(wait.wholeMilliseconds)"]
                )
            }, random: random)
        } catch let exhausted {
            throw exhausted.failure
        }
    }
}
