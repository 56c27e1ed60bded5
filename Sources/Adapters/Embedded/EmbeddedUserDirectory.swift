import Logging
import PayPulsePorts

/// The ``UserDirectory`` in the embedded SQLite file: the `users` table
/// (`user_id` primary key, `name`, `email`, `created_on`).
package struct EmbeddedUserDirectory: UserDirectory {
    let database: EmbeddedDatabase
    let logger: Logger

    /// A directory on an open database, shared with ``EmbeddedSecretStore``.
    /// - Parameters:
    ///   - database: The open embedded database.
    ///   - logger: Receives debug lines with user ids.
    package init(database: EmbeddedDatabase, logger: Logger) {
        self.database = database
        self.logger = logger
    }

    /// A directory on its own connection to `<stateDirectory>/paypulse.sqlite3`.
    /// - Throws: ``StoreError/unavailable`` or ``StoreError/corrupt`` when the database
    ///   cannot be opened (see ``EmbeddedDatabase/init(stateDirectory:logger:)``).
    package init(stateDirectory: String, logger: Logger) throws {
        self.init(database: try EmbeddedDatabase(stateDirectory: stateDirectory, logger: logger), logger: logger)
    }

    /// The user with this id, or `nil`.
    /// - Throws: ``StoreError/unavailable`` when the database cannot be read.
    package func user(id: String) async throws -> UserRecord? {
        try await database.read { connection in
            try connection.queryFirst(
                "SELECT user_id, name, email, created_on FROM users WHERE user_id = ?1", [.text(id)]
            ) { row in
                UserRecord(userID: row.text(0), name: row.text(1), email: row.text(2), createdOn: row.text(3))
            }
        }
    }

    /// Creates or replaces a user.
    /// - Throws: ``StoreError/unavailable`` when the database cannot be written.
    package func putUser(_ user: UserRecord) async throws {
        try await database.write { connection in
            try connection.run(
                """
                INSERT INTO users (user_id, name, email, created_on) VALUES (?1, ?2, ?3, ?4)
                ON CONFLICT (user_id) DO UPDATE SET
                    name = excluded.name, email = excluded.email, created_on = excluded.created_on
                """,
                [.text(user.userID), .text(user.name), .text(user.email), .text(user.createdOn)]
            )
        }
        logger.debug("user stored", metadata: ["user": "\(user.userID)"])
    }
}
