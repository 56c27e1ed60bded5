import CSQLite

/// A failed SQLite call: the extended result code and SQLite's message.
///
/// Messages come from `sqlite3_errmsg`; every value reaches SQLite as a bound parameter,
/// so they name tables and columns at most, never a stored value.
struct SQLiteError: Error, CustomStringConvertible {
    /// The extended result code, e.g. `SQLITE_BUSY_SNAPSHOT`.
    let code: Int32
    /// What SQLite said.
    let message: String

    /// The primary result code (the low byte of the extended one).
    var primaryCode: Int32 { code & 0xFF }

    /// Another connection holds a lock we need: worth retrying the whole transaction.
    var isBusy: Bool { primaryCode == SQLITE_BUSY || primaryCode == SQLITE_LOCKED }

    /// The file is not a database we can read.
    var isCorrupt: Bool { primaryCode == SQLITE_CORRUPT || primaryCode == SQLITE_NOTADB }

    var description: String { "SQLite error \(code): \(message)" }

    /// The error the connection `db` reports for result code `code`.
    init(code: Int32, connection db: OpaquePointer?) {
        self.code = code
        if let db, let text = sqlite3_errmsg(db) {
            self.message = String(cString: text)
        } else {
            self.message = String(cString: sqlite3_errstr(code))
        }
    }

    init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }
}
