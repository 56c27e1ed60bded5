import Logging
import PayPulsePorts

/// The embedded store's one SQLite file, `<stateDirectory>/paypulse.sqlite3`, holding
/// secrets, users and the security events acted on.
///
/// Open it once per process and hand it to ``EmbeddedSecretStore``,
/// ``EmbeddedUserDirectory`` and ``EmbeddedSecurityEventLedger``: they then share one
/// connection and one serial queue. Several
/// processes may open the same file at once (WAL mode, a 5 s busy timeout, `BEGIN IMMEDIATE`
/// write transactions, whole-transaction retries on `SQLITE_BUSY`).
///
/// The state directory is created 0700 and the database file 0600; SQLite gives its
/// `-wal` and `-shm` files the same mode as the database file.
package final class EmbeddedDatabase: Sendable {
    /// The database file's name inside the state directory.
    package static let fileName = "paypulse.sqlite3"

    /// The full path of the database file.
    package let path: String

    let database: SQLiteDatabase

    /// Opens (creating if needed) the database under `stateDirectory`.
    ///
    /// Runs synchronously (a few file-system calls, and the schema on first use): call it
    /// once at start-up, not per request.
    /// - Parameters:
    ///   - stateDirectory: The directory to keep the file in, e.g. `PAYPULSE_STATE_DIR`;
    ///     created 0700 with its parents when missing.
    ///   - logger: Where debug lines about the database go; never receives a secret value.
    /// - Throws: ``StoreError/unavailable`` when the directory or file cannot be created or
    ///   opened, ``StoreError/corrupt`` when the file is not a database this code can read.
    package init(stateDirectory: String, logger: Logger) throws {
        try StateDirectory.prepare(stateDirectory, logger: logger)
        let path = stateDirectory.hasSuffix("/")
            ? stateDirectory + Self.fileName
            : stateDirectory + "/" + Self.fileName
        try StateDirectory.prepareFile(path)
        self.path = path
        do {
            self.database = try SQLiteDatabase(path: path, logger: logger)
            try database.synchronously { try EmbeddedSchema.migrate($0) }
        } catch {
            throw Self.storeError(error)
        }
        logger.debug("embedded database open", metadata: ["path": "\(path)"])
    }

    /// Runs `body` in a write transaction, mapping SQLite failures to ``StoreError``.
    @discardableResult
    func write<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        do {
            return try await database.write(body)
        } catch {
            throw Self.storeError(error)
        }
    }

    /// Runs `body` in a read transaction, mapping SQLite failures to ``StoreError``.
    func read<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        do {
            return try await database.read(body)
        } catch {
            throw Self.storeError(error)
        }
    }

    /// A ``StoreError`` stays as it is; a SQLite failure becomes `corrupt` or `unavailable`.
    private static func storeError(_ error: any Error) -> any Error {
        guard let error = error as? SQLiteError else { return error }
        if error.isCorrupt { return StoreError.corrupt.with(message: error.description) }
        return StoreError.unavailable.with(message: error.description)
    }
}
