#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PayPulsePorts

/// A ``SecretStore`` in the embedded SQLite file, with the semantics of AWS Secrets Manager
/// (see ``SecretStore``): versions named by client request token, stage labels unique per
/// secret, compare-and-swap on `AWSCURRENT`, recoverable deletion, prefix listing, tags.
///
/// Each call is one SQLite transaction, so ``replaceCurrent(name:expected:value:clientRequestToken:)``
/// is atomic even against other processes writing the same file. Stage-less versions
/// beyond the newest ten are pruned. Secret values never reach the logger: only names and
/// version ids, at debug level.
public struct EmbeddedSecretStore: SecretStore {
    let database: EmbeddedDatabase
    let logger: Logger
    let now: @Sendable () -> Date

    /// A store on an open database, shared with other adapters (e.g. ``EmbeddedUserDirectory``).
    /// - Parameters:
    ///   - database: The open embedded database.
    ///   - logger: Receives debug lines with secret names and version ids, never values.
    ///   - now: The clock for version and deletion dates; tests pass a fake one to move past
    ///     a recovery window.
    public init(database: EmbeddedDatabase, logger: Logger, now: @escaping @Sendable () -> Date = { Date() }) {
        self.database = database
        self.logger = logger
        self.now = now
    }

    /// A store on its own connection to `<stateDirectory>/paypulse.sqlite3`.
    /// - Parameters:
    ///   - stateDirectory: The state directory, created 0700 when missing.
    ///   - logger: Receives debug lines with secret names and version ids, never values.
    ///   - now: The clock for version and deletion dates.
    /// - Throws: ``StoreError/unavailable`` or ``StoreError/corrupt`` when the database
    ///   cannot be opened (see ``EmbeddedDatabase/init(stateDirectory:logger:)``).
    public init(
        stateDirectory: String, logger: Logger, now: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        self.init(database: try EmbeddedDatabase(stateDirectory: stateDirectory, logger: logger), logger: logger, now: now)
    }

    /// Runs `body` in a write transaction after purging secrets whose window has passed.
    @discardableResult
    func write<T: Sendable>(_ body: @escaping @Sendable (SecretTables) throws -> T) async throws -> T {
        let now = self.now().timeIntervalSince1970
        return try await database.write { connection in
            let tables = SecretTables(connection: connection, now: now)
            try tables.purgeExpired()
            return try body(tables)
        }
    }

    /// Runs `body` in a read transaction.
    func read<T: Sendable>(_ body: @escaping @Sendable (SecretTables) throws -> T) async throws -> T {
        let now = self.now().timeIntervalSince1970
        return try await database.read { connection in
            try body(SecretTables(connection: connection, now: now))
        }
    }

    /// A stored date (seconds since 1970) as a `Date`.
    static func date(_ seconds: Double) -> Date { Date(timeIntervalSince1970: seconds) }
}
