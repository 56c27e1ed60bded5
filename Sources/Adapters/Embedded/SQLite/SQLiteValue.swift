import CSQLite

/// A value bound to a statement parameter. Values only ever reach SQL this way,
/// never by string interpolation.
enum SQLiteValue: Sendable {
    case text(String)
    case integer(Int64)
    case real(Double)
    case null
}

/// One result row of a stepped statement, valid until the next step.
struct SQLiteRow {
    fileprivate let statement: OpaquePointer

    init(statement: OpaquePointer) { self.statement = statement }

    /// Whether column `index` is NULL.
    func isNull(_ index: Int32) -> Bool {
        sqlite3_column_type(statement, index) == SQLITE_NULL
    }

    /// Column `index` as UTF-8 text ("" when NULL).
    func text(_ index: Int32) -> String {
        guard let bytes = sqlite3_column_text(statement, index) else { return "" }
        let count = Int(sqlite3_column_bytes(statement, index))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    /// Column `index` as text, or `nil` when NULL.
    func optionalText(_ index: Int32) -> String? {
        isNull(index) ? nil : text(index)
    }

    /// Column `index` as an integer.
    func integer(_ index: Int32) -> Int64 {
        sqlite3_column_int64(statement, index)
    }

    /// Column `index` as a double.
    func real(_ index: Int32) -> Double {
        sqlite3_column_double(statement, index)
    }

    /// Column `index` as a double, or `nil` when NULL.
    func optionalReal(_ index: Int32) -> Double? {
        isNull(index) ? nil : real(index)
    }
}
