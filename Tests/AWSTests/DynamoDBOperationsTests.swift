import Foundation
import PayPulseAWS
import PayPulsePorts
import PayPulseTestSupport
import Testing

@Suite("DynamoDB operations against moto_server")
struct DynamoDBOperationsTests {
    @Test("CreateTable, PutItem and GetItem on a users table; a missing key is nil")
    func putAndGet() async throws {
        let endpoint = try await MotoServer.shared().endpoint
        let table = "users-\(UUID().uuidString.lowercased())"
        let directory = DynamoDBUserDirectory(client: try AWSTestClients.dynamoDB(endpoint: endpoint), table: table)
        try await directory.createTableIfNeeded()
        try await directory.createTableIfNeeded()

        let user = UserRecord(userID: "u-1", name: "Jane Smith", email: "jane@example.com", createdOn: "2024-11-01T10:00:00Z")
        try await directory.putUser(user)
        #expect(try await directory.user(id: "u-1") == user)
        #expect(try await directory.user(id: "u-2") == nil)

        var renamed = user
        renamed.name = "Jane Doe"
        try await directory.putUser(renamed)
        #expect(try await directory.user(id: "u-1") == renamed)
    }

    @Test("a table that does not exist is a clear error, not a crash")
    func missingTable() async throws {
        let endpoint = try await MotoServer.shared().endpoint
        let directory = DynamoDBUserDirectory(client: try AWSTestClients.dynamoDB(endpoint: endpoint), table: "absent-\(UUID().uuidString)")
        await #expect(throws: StoreError.notFound) { try await directory.user(id: "u-1") }
    }
}
