import CSQLite

/// One open SQLite connection with a cache of prepared statements.
///
/// Not thread-safe: ``SQLiteDatabase`` only touches it from its serial queue.
final class SQLiteConnection {
    private let handle: OpaquePointer
    private var statements: [String: SQLiteStatement] = [:]

    /// Opens (creating if needed) the database at `path` for reading and writing.
    ///
    /// `SQLITE_OPEN_FULLMUTEX` is belt and braces: the queue already serialises every call.
    init(path: String, busyTimeoutMilliseconds: Int32) throws(SQLiteError) {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX
        let result = sqlite3_open_v2(path, &db, flags, nil)
        guard result == SQLITE_OK, let db else {
            let error = SQLiteError(code: result, connection: db)
            sqlite3_close_v2(db)
            throw error
        }
        self.handle = db
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, busyTimeoutMilliseconds)
        // Each function process opens the store for one event: a checkpoint at every close
        // cost ~20 ms of fsyncs after the response. Committed data is already durable in the
        // WAL (synchronous = FULL), and SQLite's auto-checkpoint still folds it back.
        paypulse_sqlite_no_checkpoint_on_close(db)
    }

    deinit {
        statements.removeAll()  // finalize every statement before closing
        sqlite3_close_v2(handle)
    }

    /// Runs SQL without parameters, possibly several statements (schema, BEGIN, COMMIT).
    func execute(_ sql: String) throws(SQLiteError) {
        let result = sqlite3_exec(handle, sql, nil, nil, nil)
        guard result == SQLITE_OK else { throw SQLiteError(code: result, connection: handle) }
    }

    /// Runs one statement with bound parameters, ignoring any rows.
    /// - Returns: the number of rows it changed.
    @discardableResult
    func run(_ sql: String, _ values: [SQLiteValue] = []) throws(SQLiteError) -> Int {
        let statement = try prepared(sql)
        defer { statement.reset() }
        try statement.bind(values)
        while try statement.step() != nil {}
        return Int(sqlite3_changes(handle))
    }

    /// Runs one query with bound parameters and maps every row.
    func query<T>(
        _ sql: String, _ values: [SQLiteValue] = [], row map: (SQLiteRow) throws -> T
    ) throws -> [T] {
        let statement = try prepared(sql)
        defer { statement.reset() }
        try statement.bind(values)
        var results: [T] = []
        while let row = try statement.step() {
            results.append(try map(row))
        }
        return results
    }

    /// Runs one query and maps its first row, if any.
    func queryFirst<T>(
        _ sql: String, _ values: [SQLiteValue] = [], row map: (SQLiteRow) throws -> T
    ) throws -> T? {
        let statement = try prepared(sql)
        defer { statement.reset() }
        try statement.bind(values)
        guard let row = try statement.step() else { return nil }
        return try map(row)
    }

    /// Whether a transaction is open (autocommit off).
    var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    private func prepared(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        if let statement = statements[sql] { return statement }
        let statement = try SQLiteStatement(sql: sql, connection: handle)
        statements[sql] = statement
        return statement
    }
}
