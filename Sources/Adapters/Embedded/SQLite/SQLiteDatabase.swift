import Dispatch
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One SQLite connection behind a serial dispatch queue.
///
/// Every SQLite call blocks, so none runs on the Swift concurrency pool: callers `await`
/// a continuation that the queue resumes. Writers in other connections or processes are
/// handled by WAL mode, a busy timeout, `BEGIN IMMEDIATE` write transactions (the write
/// lock is taken up front, so a transaction never fails half-way on an upgrade) and a
/// few whole-transaction retries when SQLite still reports `SQLITE_BUSY`.
final class SQLiteDatabase: @unchecked Sendable {
    // @unchecked: `connection` is only touched on `queue`.
    private let connection: SQLiteConnection
    private let queue: DispatchQueue
    private let logger: Logger

    /// How long SQLite itself waits for another connection's lock.
    static let busyTimeoutMilliseconds: Int32 = 5_000
    /// How many times a transaction runs before `SQLITE_BUSY` is given up on.
    static let maxAttempts = 5

    /// Opens the database at `path` and applies the connection settings.
    ///
    /// Runs synchronously on the caller's thread: it is meant for start-up.
    init(path: String, logger: Logger) throws {
        self.connection = try SQLiteConnection(path: path, busyTimeoutMilliseconds: Self.busyTimeoutMilliseconds)
        self.queue = DispatchQueue(label: "paypulse.embedded.sqlite")
        self.logger = logger
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

    /// Runs `body` again after a short pause while it fails with `SQLITE_BUSY`.
    private func retryingBusy<T>(_ body: () throws -> T) throws -> T {
        var attempt = 1
        while true {
            do {
                return try body()
            } catch let error as SQLiteError where error.isBusy && attempt < Self.maxAttempts {
                logger.debug("SQLite busy, retrying", metadata: ["attempt": "\(attempt)", "code": "\(error.code)"])
                // Back off a little more each time, with jitter so competing writers spread out.
                usleep(UInt32(attempt * 20_000 + Int.random(in: 0..<20_000)))
                attempt += 1
            }
        }
    }
}
