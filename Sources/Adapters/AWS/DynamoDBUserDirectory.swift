import PayPulsePorts

/// ``UserDirectory`` on a DynamoDB table keyed by `user_id`.
package struct DynamoDBUserDirectory: UserDirectory {
    private let client: DynamoDBClient
    private let table: String

    /// What reading a user (``user(id:)``) calls.
    package static let userOperations = [DynamoDBClient.getItemOperation]

    /// Creates a directory over `table`.
    package init(client: DynamoDBClient, table: String) {
        self.client = client
        self.table = table
    }

    package func user(id: String) async throws -> UserRecord? {
        let item: [String: String]?
        do {
            item = try await client.getItem(table: table, keyName: "user_id", key: id)
        } catch {
            throw StoreError(mapping: error)
        }
        guard let item else { return nil }
        return UserRecord(userID: item["user_id"] ?? id, name: item["name"] ?? "", email: item["email"] ?? "", createdOn: item["created_on"] ?? "")
    }

    package func putUser(_ user: UserRecord) async throws {
        let item = ["user_id": user.userID, "name": user.name, "email": user.email, "created_on": user.createdOn]
        do {
            try await client.putItem(table: table, item: item)
        } catch {
            throw StoreError(mapping: error)
        }
    }

    /// Creates the table if it does not exist yet (for local set-up against an emulator).
    package func createTableIfNeeded() async throws {
        do {
            try await client.createTable(table: table, keyName: "user_id")
        } catch let error as AWSError where error.type == "ResourceInUseException" {
            return
        } catch {
            throw StoreError(mapping: error)
        }
    }
}
