import Foundation
import PayPulseAWS
import PayPulseTestSupport
import Testing

/// The item operations a token table needs, against moto_server: typed values, conditional
/// writes, updates, deletes, and queries on a sparse index page by page.
@Suite("DynamoDB item operations against moto_server")
struct DynamoDBItemOperationsTests {
    private static let dueIndex = "due-index"

    /// A fresh table keyed by `user_id` with a sparse index on (`due_shard`, `due_at`).
    private func table() async throws -> (DynamoDBClient, String) {
        let client = try AWSTestClients.dynamoDB(endpoint: try await MotoServer.shared().endpoint)
        let name = "tokens-\(UUID().uuidString.lowercased())"
        let definition = DynamoDBTableDefinition(
            name: name, partitionKey: .init("user_id", .string),
            indexes: [.init(name: Self.dueIndex, partitionKey: .init("due_shard", .number), sortKey: .init("due_at", .number))]
        )
        try await client.createTable(definition)
        return (client, name)
    }

    @Test("CreateTable with an index refuses a second create; UpdateTimeToLive is accepted")
    func createTableAndTTL() async throws {
        let (client, name) = try await table()
        let again = await errorType { try await client.createTable(DynamoDBTableDefinition(name: name, partitionKey: .init("user_id", .string))) }
        #expect(again == "ResourceInUseException")
        try await client.updateTimeToLive(table: name, attribute: "purge_at")
    }

    @Test("GetItem returns strings, numbers, binary and booleans as written; a missing key is nil")
    func allKinds() async throws {
        let (client, name) = try await table()
        let item: DynamoDBItem = [
            "user_id": .string("u-1"), "version": .integer(7), "sealed": .binary([0, 1, 2, 254, 255]), "active": .bool(true),
            "status": .string("active"),
        ]
        try await client.putItem(table: name, item: item)
        let read = try #require(try await client.getItem(table: name, key: ["user_id": .string("u-1")]))
        #expect(read == item)
        #expect(read["version"]?.integerValue == 7)
        #expect(read["sealed"]?.binaryValue == [0, 1, 2, 254, 255])
        #expect(try await client.getItem(table: name, key: ["user_id": .string("u-2")]) == nil)
        // The users-table API still reads the string attributes of the same item.
        #expect(try await client.getItem(table: name, keyName: "user_id", key: "u-1") == ["user_id": "u-1", "status": "active"])
    }

    @Test("a conditional PutItem creates once; the second is ConditionalCheckFailedException and changes nothing")
    func conditionalPut() async throws {
        let (client, name) = try await table()
        let createOnly = "attribute_not_exists(user_id)"
        try await client.putItem(table: name, item: ["user_id": .string("u-1"), "version": .integer(1)], condition: createOnly)

        let error = try await awsError {
            try await client.putItem(table: name, item: ["user_id": .string("u-1"), "version": .integer(9)], condition: createOnly)
        }
        #expect(error.isConditionalCheckFailed)
        #expect(!error.isRetryable)
        #expect(try await client.getItem(table: name, key: ["user_id": .string("u-1")])?["version"] == .integer(1))
    }

    @Test("UpdateItem is a compare-and-swap on a version number; the loser gets the typed error")
    func compareAndSwap() async throws {
        let (client, name) = try await table()
        let key: DynamoDBItem = ["user_id": .string("u-1")]
        try await client.putItem(table: name, item: key.merging(["version": .integer(1), "status": .string("active")]) { $1 })

        let swap = "SET #v = #v + :one, #s = :status"
        func placeholders(expecting version: Int) -> DynamoDBExpressionValues {
            DynamoDBExpressionValues(
                names: ["#v": "version", "#s": "status"],
                values: [":one": .integer(1), ":expected": .integer(version), ":status": .string("revoked")]
            )
        }
        let updated = try await client.updateItem(
            table: name, key: key, update: swap, condition: "#v = :expected", placeholders: placeholders(expecting: 1)
        )
        #expect(updated == ["user_id": .string("u-1"), "version": .integer(2), "status": .string("revoked")])

        // A writer that read version 1 lost the race.
        let error = try await awsError {
            try await client.updateItem(table: name, key: key, update: swap, condition: "#v = :expected", placeholders: placeholders(expecting: 1))
        }
        #expect(error.isConditionalCheckFailed)
        #expect(try await client.getItem(table: name, key: key)?["version"] == .integer(2))

        // REMOVE takes an item out of a sparse index.
        let removed = try await client.updateItem(table: name, key: key, update: "REMOVE #s", placeholders: .init(names: ["#s": "status"]))
        #expect(removed["status"] == nil)
    }

    /// The peer must keep DynamoDB's promise that a condition and its write are one step:
    /// plain moto checks and writes separately, and under load two racers both won
    /// (scripts/moto-server.py). Every compare-and-swap proof here rests on this.
    @Test("racing UpdateItems that read one version: exactly one wins, round after round")
    func racingSwapsHaveOneWinner() async throws {
        let (client, name) = try await table()
        let key: DynamoDBItem = ["user_id": .string("u-1")]
        for round in 0..<40 {
            try await client.putItem(table: name, item: key.merging(["version": .integer(0), "writer": .integer(-1)]) { $1 })
            let winners = try await withThrowingTaskGroup(of: Int?.self) { group in
                for writer in 0..<8 {
                    group.addTask {
                        do {
                            // As many clauses as a token set's write: the wider moto's gap.
                            var placeholders = DynamoDBExpressionValues(
                                names: ["#v": "version", "#w": "writer"],
                                values: [":expected": .integer(0), ":next": .integer(1), ":writer": .integer(Int64(writer))]
                            )
                            var clauses = ["#v = :next", "#w = :writer"]
                            for attribute in 0..<16 {
                                placeholders.names["#a\(attribute)"] = "attribute-\(attribute)"
                                placeholders.values[":a\(attribute)"] = .string(String(repeating: "x", count: 200))
                                clauses.append("#a\(attribute) = :a\(attribute)")
                            }
                            _ = try await client.updateItem(
                                table: name, key: key, update: "SET " + clauses.joined(separator: ", "), condition: "#v = :expected",
                                placeholders: placeholders
                            )
                            return writer
                        } catch let error as AWSError where error.isConditionalCheckFailed {
                            return nil
                        }
                    }
                }
                return try await group.reduce(into: [Int]()) { if let writer = $1 { $0.append(writer) } }
            }
            #expect(winners.count == 1, "round \(round): \(winners.count) conditional writes on version 0 succeeded")
            let stored = try await client.getItem(table: name, key: key)
            #expect(stored?["writer"] == winners.first.map { .integer(Int64($0)) })
        }
    }

    @Test("DeleteItem honours its condition; deleting a missing item is not an error")
    func conditionalDelete() async throws {
        let (client, name) = try await table()
        let key: DynamoDBItem = ["user_id": .string("u-1")]
        try await client.putItem(table: name, item: key.merging(["version": .integer(3)]) { $1 })
        let condition = "version = :expected"

        let error = try await awsError {
            try await client.deleteItem(table: name, key: key, condition: condition, placeholders: .init(values: [":expected": .integer(2)]))
        }
        #expect(error.isConditionalCheckFailed)
        #expect(try await client.getItem(table: name, key: key) != nil)

        try await client.deleteItem(table: name, key: key, condition: condition, placeholders: .init(values: [":expected": .integer(3)]))
        #expect(try await client.getItem(table: name, key: key) == nil)
        try await client.deleteItem(table: name, key: key)
    }

    @Test("Query on the sparse index pages with Limit and ExclusiveStartKey, in sort key order, one shard only")
    func queryPages() async throws {
        let (client, name) = try await table()
        for number in 0..<7 {
            try await client.putItem(table: name, item: [
                "user_id": .string("due-\(number)"), "due_shard": .integer(3), "due_at": .integer(1_000 + (6 - number) * 10),
            ])
        }
        try await client.putItem(table: name, item: ["user_id": .string("other-shard"), "due_shard": .integer(4), "due_at": .integer(1_000)])
        try await client.putItem(table: name, item: ["user_id": .string("not-due-yet"), "due_shard": .integer(3), "due_at": .integer(9_999)])
        try await client.putItem(table: name, item: ["user_id": .string("not-in-index")])

        let placeholders = DynamoDBExpressionValues(names: ["#shard": "due_shard", "#due": "due_at"], values: [":shard": .integer(3), ":now": .integer(2_000)])
        var pages: [DynamoDBPage] = []
        var startKey: DynamoDBItem?
        repeat {
            let page = try await client.query(
                table: name, index: Self.dueIndex, keyCondition: "#shard = :shard AND #due <= :now", placeholders: placeholders,
                limit: 3, startKey: startKey
            )
            pages.append(page)
            startKey = page.lastEvaluatedKey
        } while startKey != nil && pages.count < 10

        #expect(pages.map(\.items.count) == [3, 3, 1])
        let users = pages.flatMap(\.items).compactMap { $0["user_id"]?.stringValue }
        #expect(users == (0..<7).reversed().map { "due-\($0)" })

        // On the table itself, by partition key.
        let one = try await client.query(table: name, keyCondition: "user_id = :u", placeholders: .init(values: [":u": .string("due-2")]), consistentRead: true)
        #expect(one.items.count == 1)
        #expect(one.lastEvaluatedKey == nil)
    }
}

/// The ``AWSError`` `body` throws.
func awsError<T>(_ body: () async throws -> T) async throws -> AWSError {
    do {
        _ = try await body()
    } catch let error as AWSError {
        return error
    }
    Issue.record("expected an AWSError")
    throw CancellationError()
}
