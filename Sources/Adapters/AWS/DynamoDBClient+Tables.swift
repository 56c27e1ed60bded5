/// Table set-up beyond the users table: indexes, number and binary keys, time to live.
extension DynamoDBClient {
    /// `CreateTable` as `table` declares it, with on-demand billing (for local set-up).
    /// - Throws: ``AWSError`` `ResourceInUseException` when the table exists.
    public func createTable(_ table: DynamoDBTableDefinition) async throws {
        let _: DynamoDB.Empty = try await client.call("CreateTable", DynamoDB.CreateTableInput(table: table))
    }

    /// `UpdateTimeToLive`: DynamoDB deletes an item some time after the epoch second held in
    /// `attribute` has passed.
    /// - Throws: ``AWSError`` (`ValidationException` when TTL already has this state).
    public func updateTimeToLive(table: String, attribute: String, enabled: Bool = true) async throws {
        let input = DynamoDB.UpdateTimeToLiveInput(TableName: table, AttributeName: attribute, Enabled: enabled)
        let _: DynamoDB.Empty = try await client.call("UpdateTimeToLive", input)
    }

    /// `DescribeTable`: the table's keys and global secondary indexes as a definition (tools
    /// read a table's shape with it; no function calls it).
    /// - Throws: ``AWSError`` (`ResourceNotFoundException` for a missing table).
    public func describeTable(_ table: String) async throws -> DynamoDBTableDefinition {
        let output: DynamoDB.DescribeTableOutput = try await client.call("DescribeTable", DynamoDB.DescribeTableInput(TableName: table))
        return output.table
    }
}
