/// Typed DynamoDB operations: here the users table's string-only calls; typed items, conditional
/// writes, queries and table set-up in `DynamoDBClient+Items` and `DynamoDBClient+Tables`.
public struct DynamoDBClient: Sendable {
    let client: AWSJSONClient

    /// Creates a client speaking to DynamoDB through `client`.
    public init(client: AWSJSONClient) { self.client = client }

    /// `GetItem` with a consistent read; string attributes only, `nil` when there is no item.
    public func getItem(table: String, keyName: String, key: String) async throws -> [String: String]? {
        let input = DynamoDB.GetItemInput(TableName: table, Key: [keyName: .string(key)], ConsistentRead: true)
        let output: DynamoDB.GetItemOutput = try await client.call("GetItem", input)
        return output.Item?.compactMapValues(\.S)
    }

    /// `PutItem` of string attributes, replacing any item with the same key.
    public func putItem(table: String, item: [String: String]) async throws {
        let input = DynamoDB.PutItemInput(TableName: table, Item: item.mapValues(DynamoDB.AttributeValue.string))
        let _: DynamoDB.Empty = try await client.call("PutItem", input)
    }

    /// `CreateTable` with a string partition key and on-demand billing (for local set-up).
    /// - Throws: ``AWSError`` `ResourceInUseException` when the table exists.
    public func createTable(table: String, keyName: String) async throws {
        try await createTable(DynamoDBTableDefinition(name: table, partitionKey: .init(keyName, .string)))
    }
}
