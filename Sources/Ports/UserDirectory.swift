/// A PayPulse user as the users table keeps it.
package struct UserRecord: Sendable, Equatable, Codable {
    /// The partition key: the JWT `sub`.
    package var userID: String
    /// The display name.
    package var name: String
    /// The PayPulse login email (not the Google one).
    package var email: String
    /// When the account was created, RFC 3339 UTC, e.g. `2024-11-01T10:00:00Z`.
    package var createdOn: String

    /// Creates a record.
    package init(userID: String, name: String, email: String, createdOn: String) {
        self.userID = userID
        self.name = name
        self.email = email
        self.createdOn = createdOn
    }
}

/// The users table: DynamoDB in AWS, a SQLite table in the embedded store.
package protocol UserDirectory: Sendable {
    /// The user with this id, or `nil` when there is none.
    /// - Throws: ``StoreError/unavailable`` when the directory cannot be reached.
    func user(id: String) async throws -> UserRecord?

    /// Creates or replaces a user.
    func putUser(_ user: UserRecord) async throws
}
