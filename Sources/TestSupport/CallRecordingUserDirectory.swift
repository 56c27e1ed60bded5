import PayPulsePorts

/// Wraps a ``UserDirectory`` and records every call in a ``StoreCallLog``.
package struct CallRecordingUserDirectory: UserDirectory {
    private let inner: any UserDirectory
    /// Where the calls go.
    package let log: StoreCallLog

    /// Wraps `inner`, recording into `log`.
    package init(_ inner: any UserDirectory, log: StoreCallLog = StoreCallLog()) {
        self.inner = inner
        self.log = log
    }

    package func user(id: String) async throws -> UserRecord? {
        log.record("UserDirectory.user(\(id))")
        return try await inner.user(id: id)
    }

    package func putUser(_ user: UserRecord) async throws {
        log.record("UserDirectory.putUser(\(user.userID))")
        try await inner.putUser(user)
    }
}
