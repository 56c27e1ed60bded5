import CSQLite

/// A prepared statement, reused through the connection's cache.
///
/// Not thread-safe: used only on its database's serial queue.
final class SQLiteStatement {
    private let handle: OpaquePointer
    private let connection: OpaquePointer

    init(sql: String, connection: OpaquePointer) throws(SQLiteError) {
        var statement: OpaquePointer?
        let flags = UInt32(SQLITE_PREPARE_PERSISTENT)
        let result = sqlite3_prepare_v3(connection, sql, -1, flags, &statement, nil)
        guard result == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            throw SQLiteError(code: result, connection: connection)
        }
        self.handle = statement
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    /// Binds `values` to parameters 1...n, replacing earlier bindings.
    func bind(_ values: [SQLiteValue]) throws(SQLiteError) {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let result: Int32
            switch value {
            case .text(let string):
                result = Self.bindText(string, to: handle, at: index)
            case .integer(let number):
                result = sqlite3_bind_int64(handle, index, number)
            case .real(let number):
                result = sqlite3_bind_double(handle, index, number)
            case .null:
                result = sqlite3_bind_null(handle, index)
            }
            guard result == SQLITE_OK else { throw SQLiteError(code: result, connection: connection) }
        }
    }

    /// Steps once.
    /// - Returns: the next row, or `nil` once the statement is done.
    func step() throws(SQLiteError) -> SQLiteRow? {
        let result = sqlite3_step(handle)
        switch result {
        case SQLITE_ROW:
            return SQLiteRow(statement: handle)
        case SQLITE_DONE:
            return nil
        default:
            // Reset right away so a failed statement never keeps a read lock open.
            sqlite3_reset(handle)
            throw SQLiteError(code: result, connection: connection)
        }
    }

    /// Releases the statement's locks and bound strings once the caller is done with it.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Binds the exact UTF-8 bytes (so an embedded NUL is kept) and lets SQLite copy them.
    private static func bindText(_ string: String, to handle: OpaquePointer, at index: Int32) -> Int32 {
        var string = string
        return string.withUTF8 { bytes in
            guard let base = bytes.baseAddress, bytes.count > 0 else {
                return sqlite3_bind_text(handle, index, "", 0, paypulse_sqlite_transient())
            }
            return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) { chars in
                sqlite3_bind_text(handle, index, chars, Int32(bytes.count), paypulse_sqlite_transient())
            }
        }
    }
}
