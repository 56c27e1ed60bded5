import PayPulsePorts

/// The tables of the embedded store, versioned with `PRAGMA user_version`.
///
/// Dates are seconds since 1970 (REAL). Text compares with the default BINARY collation,
/// so names are case-sensitive as in Secrets Manager.
enum EmbeddedSchema {
    /// The schema version this code writes. 2 added `security_events`, 3
    /// `security_event_latest`, 4 `request_quotas`, 5 `lifecycle_events`, 6
    /// `security_event_claims` and `google_account_words`; ``create`` is
    /// idempotent, so an older file is brought up by running it again.
    static let version = 6

    /// Creates the tables. Idempotent, and run inside `BEGIN IMMEDIATE` so that two
    /// processes opening a new file at once do not both migrate it.
    static let create = """
        CREATE TABLE IF NOT EXISTS secrets (
            name          TEXT PRIMARY KEY NOT NULL,
            created_date  REAL NOT NULL,
            deleted_date  REAL,
            deletion_date REAL
        );
        CREATE INDEX IF NOT EXISTS secrets_deletion_date ON secrets (deletion_date)
            WHERE deletion_date IS NOT NULL;

        -- id orders versions (newest last) for pruning.
        CREATE TABLE IF NOT EXISTS secret_versions (
            id           INTEGER PRIMARY KEY,
            secret_name  TEXT NOT NULL REFERENCES secrets (name) ON DELETE CASCADE,
            version_id   TEXT NOT NULL,
            value        TEXT NOT NULL,
            created_date REAL NOT NULL,
            UNIQUE (secret_name, version_id)
        );

        -- The primary key makes a stage label unique within a secret.
        CREATE TABLE IF NOT EXISTS secret_stages (
            secret_name TEXT NOT NULL,
            stage       TEXT NOT NULL,
            version_id  TEXT NOT NULL,
            PRIMARY KEY (secret_name, stage),
            FOREIGN KEY (secret_name, version_id)
                REFERENCES secret_versions (secret_name, version_id) ON DELETE CASCADE
        );

        CREATE TABLE IF NOT EXISTS secret_tags (
            secret_name TEXT NOT NULL REFERENCES secrets (name) ON DELETE CASCADE,
            key         TEXT NOT NULL,
            value       TEXT NOT NULL,
            PRIMARY KEY (secret_name, key)
        );
        -- Finds the grants of a Google account (the tag paypulse:google-sub) without a scan.
        CREATE INDEX IF NOT EXISTS secret_tags_value ON secret_tags (value);

        CREATE TABLE IF NOT EXISTS users (
            user_id    TEXT PRIMARY KEY NOT NULL,
            name       TEXT NOT NULL,
            email      TEXT NOT NULL,
            created_on TEXT NOT NULL
        );

        -- The security events acted on (EmbeddedSecurityEventLedger); expired rows are pruned
        -- a few at a time, found through the index.
        CREATE TABLE IF NOT EXISTS security_events (
            jti        TEXT PRIMARY KEY NOT NULL,
            expires_at REAL NOT NULL
        );
        CREATE INDEX IF NOT EXISTS security_events_expires_at ON security_events (expires_at);

        -- The security events being acted on (claimed, not yet recorded), by whom, until
        -- their lease ends.
        CREATE TABLE IF NOT EXISTS security_event_claims (
            jti        TEXT PRIMARY KEY NOT NULL,
            claimant   TEXT NOT NULL,
            expires_at REAL NOT NULL
        );

        -- Google's latest word on each Google account (EmbeddedGoogleAccountWords): one row
        -- per account and kind, the latest iat; recorded_at finds what the refresh run applies.
        CREATE TABLE IF NOT EXISTS google_account_words (
            subject     TEXT NOT NULL,
            kind        TEXT NOT NULL,
            issued_at   REAL NOT NULL,
            recorded_at REAL NOT NULL,
            PRIMARY KEY (subject, kind)
        );
        CREATE INDEX IF NOT EXISTS google_account_words_recorded_at ON google_account_words (recorded_at);

        -- Each Google account's latest security event, for the local console.
        CREATE TABLE IF NOT EXISTS security_event_latest (
            subject     TEXT PRIMARY KEY NOT NULL,
            event_type  TEXT NOT NULL,
            jti         TEXT NOT NULL,
            received_at REAL NOT NULL
        );

        -- Each user's counted store-tokens posts (EmbeddedRequestQuota): their times, whole
        -- milliseconds since 1970, space-separated, oldest first, kept until the newest leaves the window
        -- (expires_at); expired rows are pruned a few at a time, found through the index.
        CREATE TABLE IF NOT EXISTS request_quotas (
            user_id    TEXT PRIMARY KEY NOT NULL,
            uses       TEXT NOT NULL,
            expires_at REAL NOT NULL
        );
        CREATE INDEX IF NOT EXISTS request_quotas_expires_at ON request_quotas (expires_at);

        -- The lifecycle events published (EmbeddedLifecycleEvents), one row per event_id
        -- however often it is put; seq orders them as they arrived.
        CREATE TABLE IF NOT EXISTS lifecycle_events (
            seq          INTEGER PRIMARY KEY,
            event_id     TEXT NOT NULL UNIQUE,
            detail_type  TEXT NOT NULL,
            detail       TEXT NOT NULL,
            published_at REAL NOT NULL
        );
        """

    /// Brings the database at `connection` to ``version``.
    /// - Throws: ``StoreError/corrupt`` when the file was written by a newer schema.
    static func migrate(_ connection: SQLiteConnection) throws {
        try connection.execute("BEGIN IMMEDIATE")
        do {
            let current = try connection.queryFirst("PRAGMA user_version") { Int($0.integer(0)) } ?? 0
            if current > version {
                throw StoreError.corrupt.with(message: "database schema \(current) is newer than \(version)")
            }
            if current < version {
                try connection.execute(create)
                // PRAGMA takes no bound parameters; `version` is a compile-time constant.
                try connection.execute("PRAGMA user_version = \(version)")
            }
            try connection.execute("COMMIT")
        } catch {
            if connection.isInTransaction { try? connection.execute("ROLLBACK") }
            throw error
        }
    }
}
