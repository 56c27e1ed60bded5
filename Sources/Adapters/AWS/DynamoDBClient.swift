import PayPulseCoding
import PayPulsePorts

/// Typed DynamoDB operations: the users table's string-only calls, typed items with conditional
/// writes and queries, and table set-up. A condition that does not hold throws ``AWSError``
/// with ``AWSError/isConditionalCheckFailed`` set. Each operation declares its IAM action
/// (``AWSOperation``) beside the methods that call it.
package struct DynamoDBClient: Sendable {
    let client: AWSJSONClient

    /// Creates a client speaking to DynamoDB through `client`.
    package init(client: AWSJSONClient) { self.client = client }

    /// `GetItem`: IAM `dynamodb:GetItem` on the table.
    package static let getItemOperation = AWSOperation(.dynamoDB, "GetItem", on: .table)
    /// `PutItem`: IAM `dynamodb:PutItem` on the table.
    package static let putItemOperation = AWSOperation(.dynamoDB, "PutItem", on: .table)
    /// `UpdateItem`: IAM `dynamodb:UpdateItem` on the table.
    package static let updateItemOperation = AWSOperation(.dynamoDB, "UpdateItem", on: .table)
    /// `DeleteItem`: IAM `dynamodb:DeleteItem` on the table.
    package static let deleteItemOperation = AWSOperation(.dynamoDB, "DeleteItem", on: .table)
    /// `Query` of a table: IAM `dynamodb:Query` on the table.
    package static let queryOperation = AWSOperation(.dynamoDB, "Query", on: .table)
    /// `Query` of a global secondary index: IAM `dynamodb:Query` on the index.
    package static let queryIndexOperation = AWSOperation(.dynamoDB, "Query", on: .index)
    /// `Scan`: IAM `dynamodb:Scan` on the table.
    package static let scanOperation = AWSOperation(.dynamoDB, "Scan", on: .table)
    /// `CreateTable`: IAM `dynamodb:CreateTable` on the table.
    package static let createTableOperation = AWSOperation(.dynamoDB, "CreateTable", on: .table)
    /// `UpdateTimeToLive`: IAM `dynamodb:UpdateTimeToLive` on the table.
    package static let updateTimeToLiveOperation = AWSOperation(.dynamoDB, "UpdateTimeToLive", on: .table)
    /// `DescribeTimeToLive`: IAM `dynamodb:DescribeTimeToLive` on the table.
    package static let describeTimeToLiveOperation = AWSOperation(.dynamoDB, "DescribeTimeToLive", on: .table)
    /// `DescribeTable`: IAM `dynamodb:DescribeTable` on the table.
    package static let describeTableOperation = AWSOperation(.dynamoDB, "DescribeTable", on: .table)
    /// `UpdateTable` (set-up only: adding an index a newer version declares).
    package static let updateTableOperation = AWSOperation(.dynamoDB, "UpdateTable", on: .table)

    /// `GetItem` with a consistent read; string attributes only, `nil` when there is no item.
    package func getItem(table: String, keyName: String, key: String) async throws -> [String: String]? {
        let input = DynamoDB.GetItemInput(TableName: table, Key: [keyName: .string(key)], ConsistentRead: true)
        let output: DynamoDB.GetItemOutput = try await client.call(Self.getItemOperation, input)
        return output.Item?.compactMapValues(\.S)
    }

    /// `PutItem` of string attributes, replacing any item with the same key.
    package func putItem(table: String, item: [String: String]) async throws {
        let input = DynamoDB.PutItemInput(TableName: table, Item: item.mapValues(DynamoDB.AttributeValue.string))
        let _: DynamoDB.Empty = try await client.call(Self.putItemOperation, input)
    }

    /// `CreateTable` with a string partition key and on-demand billing (for local set-up).
    /// - Throws: ``AWSError`` `ResourceInUseException` when the table exists.
    package func createTable(table: String, keyName: String) async throws {
        try await createTable(DynamoDBTableDefinition(name: table, partitionKey: .init(keyName, .string)))
    }

    /// `GetItem` returning every attribute of the kinds ``DynamoDBValue`` holds.
    /// - Parameters:
    ///   - key: the full primary key.
    ///   - consistentRead: read the latest write (the default), not an eventually consistent copy.
    /// - Returns: the item, or `nil` when there is none.
    /// - Throws: ``AWSError`` (`ResourceNotFoundException` for a missing table).
    package func getItem(table: String, key: DynamoDBItem, consistentRead: Bool = true) async throws -> DynamoDBItem? {
        let input = DynamoDB.GetItemInput(TableName: table, Key: DynamoDB.item(key), ConsistentRead: consistentRead)
        let output: DynamoDB.GetItemOutput = try await client.call(Self.getItemOperation, input)
        return output.Item.map(DynamoDB.item)
    }

    /// `PutItem`, replacing any item with the same key when `condition` holds (always when `nil`).
    /// - Parameters:
    ///   - condition: a `ConditionExpression`, e.g. `attribute_not_exists(user_id)` to create only.
    ///   - placeholders: the `#name` and `:value` placeholders `condition` uses.
    /// - Throws: ``AWSError``; ``AWSError/isConditionalCheckFailed`` when the condition failed.
    package func putItem(
        table: String, item: DynamoDBItem, condition: String? = nil, placeholders: DynamoDBExpressionValues = .none
    ) async throws {
        let input = DynamoDB.PutItemInput(
            TableName: table, Item: DynamoDB.item(item), ConditionExpression: condition,
            ExpressionAttributeNames: placeholders.wireNames, ExpressionAttributeValues: placeholders.wireValues
        )
        let _: DynamoDB.Empty = try await client.call(Self.putItemOperation, input)
    }

    /// `UpdateItem` when `condition` holds (always when `nil`); creates the item if it does not
    /// exist and the condition allows it.
    /// - Parameters:
    ///   - update: an `UpdateExpression`, e.g. `SET #v = #v + :one`.
    ///   - condition: a `ConditionExpression`, e.g. `#v = :expected` for a compare-and-swap.
    ///   - placeholders: the placeholders both expressions use.
    /// - Returns: the item as it is after the update (`ReturnValues` `ALL_NEW`).
    /// - Throws: ``AWSError``; ``AWSError/isConditionalCheckFailed`` when the condition failed.
    @discardableResult
    package func updateItem(
        table: String, key: DynamoDBItem, update: String, condition: String? = nil, placeholders: DynamoDBExpressionValues = .none
    ) async throws -> DynamoDBItem {
        let input = DynamoDB.UpdateItemInput(
            TableName: table, Key: DynamoDB.item(key), UpdateExpression: update, ConditionExpression: condition,
            ExpressionAttributeNames: placeholders.wireNames, ExpressionAttributeValues: placeholders.wireValues, ReturnValues: "ALL_NEW"
        )
        let output: DynamoDB.AttributesOutput = try await client.call(Self.updateItemOperation, input)
        return output.Attributes.map(DynamoDB.item) ?? [:]
    }

    /// `DeleteItem` when `condition` holds (always when `nil`). Deleting a missing item is not an error.
    /// - Throws: ``AWSError``; ``AWSError/isConditionalCheckFailed`` when the condition failed.
    package func deleteItem(
        table: String, key: DynamoDBItem, condition: String? = nil, placeholders: DynamoDBExpressionValues = .none
    ) async throws {
        let input = DynamoDB.DeleteItemInput(
            TableName: table, Key: DynamoDB.item(key), ConditionExpression: condition,
            ExpressionAttributeNames: placeholders.wireNames, ExpressionAttributeValues: placeholders.wireValues
        )
        let _: DynamoDB.Empty = try await client.call(Self.deleteItemOperation, input)
    }

    /// One page of a `Query` on a table or, with `index`, on a global secondary index.
    /// - Parameters:
    ///   - keyCondition: a `KeyConditionExpression` on the partition key (and the sort key).
    ///   - filter: a `FilterExpression` applied after the key condition (and after `limit`).
    ///   - limit: the most items DynamoDB evaluates for this page.
    ///   - startKey: the previous page's ``DynamoDBPage/lastEvaluatedKey``.
    ///   - consistentRead: a consistent read (tables only; an index refuses it).
    ///   - ascending: sort key order.
    /// - Throws: ``AWSError``.
    package func query(
        table: String, index: String? = nil, keyCondition: String, filter: String? = nil,
        placeholders: DynamoDBExpressionValues, limit: Int? = nil, startKey: DynamoDBItem? = nil,
        consistentRead: Bool = false, ascending: Bool = true
    ) async throws -> DynamoDBPage {
        let input = DynamoDB.QueryInput(
            TableName: table, IndexName: index, KeyConditionExpression: keyCondition, FilterExpression: filter,
            ExpressionAttributeNames: placeholders.wireNames, ExpressionAttributeValues: placeholders.wireValues,
            Limit: limit, ExclusiveStartKey: startKey.map(DynamoDB.item), ConsistentRead: consistentRead ? true : nil,
            ScanIndexForward: ascending ? nil : false
        )
        let output: DynamoDB.QueryOutput = try await client.call(index == nil ? Self.queryOperation : Self.queryIndexOperation, input)
        return DynamoDBPage(items: (output.Items ?? []).map(DynamoDB.item), lastEvaluatedKey: output.LastEvaluatedKey.map(DynamoDB.item))
    }

    /// One page of a `Scan` of the whole table: its cost grows with the table, so it serves
    /// listings for tools and tests, never a per-request path.
    /// - Parameters:
    ///   - filter: a `FilterExpression`, applied after `limit` (a page may hold fewer items,
    ///     even none, and still have a next page).
    ///   - limit: the most items DynamoDB evaluates for this page.
    ///   - startKey: the previous page's ``DynamoDBPage/lastEvaluatedKey``.
    /// - Throws: ``AWSError``.
    package func scan(
        table: String, filter: String? = nil, placeholders: DynamoDBExpressionValues = .none, limit: Int? = nil,
        startKey: DynamoDBItem? = nil, consistentRead: Bool = true
    ) async throws -> DynamoDBPage {
        let input = DynamoDB.QueryInput(
            TableName: table, IndexName: nil, KeyConditionExpression: nil, FilterExpression: filter,
            ExpressionAttributeNames: placeholders.wireNames, ExpressionAttributeValues: placeholders.wireValues, Limit: limit,
            ExclusiveStartKey: startKey.map(DynamoDB.item), ConsistentRead: consistentRead ? true : nil, ScanIndexForward: nil
        )
        let output: DynamoDB.QueryOutput = try await client.call(Self.scanOperation, input)
        return DynamoDBPage(items: (output.Items ?? []).map(DynamoDB.item), lastEvaluatedKey: output.LastEvaluatedKey.map(DynamoDB.item))
    }

    /// `CreateTable` as `table` declares it, with on-demand billing (for local set-up).
    /// - Throws: ``AWSError`` `ResourceInUseException` when the table exists.
    package func createTable(_ table: DynamoDBTableDefinition) async throws {
        let _: DynamoDB.Empty = try await client.call(Self.createTableOperation, DynamoDB.CreateTableInput(table: table))
    }

    /// Creates `table` and turns on its time to live on `attribute`, for the tables of records
    /// that expire; an existing table is otherwise left as it is, but gains its time to live
    /// when it lacks it (created by hand, or by a set-up that stopped halfway).
    /// - Throws: ``StoreError`` when DynamoDB refuses or cannot be reached.
    package func createTableIfNeeded(_ table: DynamoDBTableDefinition, timeToLive attribute: String) async throws {
        do {
            try await createTable(table)
        } catch let error as AWSError where error.type == "ResourceInUseException" {
            try await StoreError.mapping { try await ensureTimeToLive(table: table.name, attribute: attribute) }
            return
        } catch {
            throw StoreError(mapping: error)
        }
        try await StoreError.mapping { try await updateTimeToLive(table: table.name, attribute: attribute) }
    }

    /// `UpdateTimeToLive` unless the time to live is on (or turning on) for `attribute`
    /// already. One on another attribute is left for DynamoDB to refuse.
    /// - Throws: ``AWSError``.
    package func ensureTimeToLive(table: String, attribute: String) async throws {
        if try await timeToLiveAttribute(of: table) == attribute { return }
        try await updateTimeToLive(table: table, attribute: attribute)
    }

    /// `DescribeTimeToLive`: the attribute whose time to live is on or turning on; `nil` when off.
    /// - Throws: ``AWSError``.
    package func timeToLiveAttribute(of table: String) async throws -> String? {
        let output: DynamoDB.TimeToLiveOutput = try await client.call(Self.describeTimeToLiveOperation, DynamoDB.DescribeTableInput(TableName: table))
        return output.status == "ENABLED" || output.status == "ENABLING" ? output.attribute : nil
    }

    /// `UpdateTimeToLive`: DynamoDB deletes an item some time after the epoch second held in
    /// `attribute` has passed.
    /// - Throws: ``AWSError`` (`ValidationException` when TTL already has this state).
    package func updateTimeToLive(table: String, attribute: String, enabled: Bool = true) async throws {
        let input = DynamoDB.UpdateTimeToLiveInput(TableName: table, AttributeName: attribute, Enabled: enabled)
        let _: DynamoDB.Empty = try await client.call(Self.updateTimeToLiveOperation, input)
    }

    /// `UpdateTable` creating `index` on `table`: DynamoDB back-fills it from the items
    /// (for local set-up and upgrades; no function calls it).
    /// - Throws: ``AWSError`` (`ValidationException` when it exists or is being created).
    package func addIndex(_ index: DynamoDBTableDefinition.GlobalIndex, to table: String) async throws {
        let _: DynamoDB.Empty = try await client.call(Self.updateTableOperation, DynamoDB.CreateIndexInput(table: table, index: index))
    }

    /// `DescribeTable`, read for the names of the table's global secondary indexes alone.
    /// - Throws: ``AWSError`` (`ResourceNotFoundException` for a missing table).
    package func indexNames(of table: String) async throws -> [String] {
        let output: DynamoDB.IndexNamesOutput = try await client.call(Self.describeTableOperation, DynamoDB.DescribeTableInput(TableName: table))
        return output.names
    }

    /// `DescribeTable`, read for the global secondary indexes still being built
    /// (`IndexStatus` `CREATING`): DynamoDB builds one at a time and refuses another meanwhile.
    /// - Throws: ``AWSError``.
    package func indexesBeingBuilt(of table: String) async throws -> [String] {
        let output: DynamoDB.IndexNamesOutput = try await client.call(Self.describeTableOperation, DynamoDB.DescribeTableInput(TableName: table))
        return output.names.filter { output.statuses[$0] == "CREATING" }
    }

    /// `DescribeTable`: the table's keys and global secondary indexes as a definition (tools
    /// read a table's shape with it; no function calls it).
    /// - Throws: ``AWSError`` (`ResourceNotFoundException` for a missing table).
    package func describeTable(_ table: String) async throws -> DynamoDBTableDefinition {
        let output: DynamoDB.DescribeTableOutput = try await client.call(Self.describeTableOperation, DynamoDB.DescribeTableInput(TableName: table))
        return output.table
    }
}


/// One page of a query or a scan.
package struct DynamoDBPage: Sendable, Equatable {
    /// The items of this page.
    package var items: [DynamoDBItem]
    /// Where the next page starts; `nil` on the last page.
    package var lastEvaluatedKey: DynamoDBItem?

    /// Creates a page.
    package init(items: [DynamoDBItem], lastEvaluatedKey: DynamoDBItem?) {
        self.items = items
        self.lastEvaluatedKey = lastEvaluatedKey
    }
}

/// Request and response shapes of the DynamoDB item operations we call, each with its one
/// encoding (see ``AWSJSONInput``); table set-up's shapes are in `DynamoDBTableShapes.swift`.
enum DynamoDB {
    /// An attribute value: strings, numbers (decimal text), binary (base64 text) and booleans;
    /// other kinds (lists, maps, sets, null) are read as absent.
    struct AttributeValue: Equatable {
        var S: String?
        var N: String?
        var B: String?
        var BOOL: Bool?

        static func string(_ value: String) -> AttributeValue { AttributeValue(S: value) }

        init(S: String? = nil, N: String? = nil, B: String? = nil, BOOL: Bool? = nil) {
            self.S = S
            self.N = N
            self.B = B
            self.BOOL = BOOL
        }

        var json: JSONValue {
            .members(["S": .stringIfPresent(S), "N": .stringIfPresent(N), "B": .stringIfPresent(B), "BOOL": BOOL.map(JSONValue.bool)])
        }

        init(json value: JSONValue) throws(JSONTypeMismatch) {
            guard case .object(let fields) = value else { throw JSONTypeMismatch(key: "AttributeValue") }
            self.init(S: try fields.string("S"), N: try fields.string("N"), B: try fields.string("B"), BOOL: try fields.bool("BOOL"))
        }
    }

    typealias Item = [String: AttributeValue]

    static func json(_ item: Item) -> JSONValue { .object(item.mapValues(\.json)) }
    static func json(_ item: Item?) -> JSONValue? { item.map(json) }
    static func json(_ names: [String: String]?) -> JSONValue? { names.map { .object($0.mapValues(JSONValue.string)) } }

    static func item(json value: JSONValue, key: String) throws(JSONTypeMismatch) -> Item {
        guard case .object(let fields) = value else { throw JSONTypeMismatch(key: key) }
        var item: Item = [:]
        item.reserveCapacity(fields.count)
        for (name, attribute) in fields { item[name] = try AttributeValue(json: attribute) }
        return item
    }

    static func item(in fields: [String: JSONValue], key: String) throws(JSONTypeMismatch) -> Item? {
        switch fields[key] {
        case nil, .null?: nil
        case let value?: try item(json: value, key: key)
        }
    }

    struct GetItemInput: AWSJSONInput {
        var TableName: String
        var Key: Item
        var ConsistentRead: Bool

        var json: JSONValue { .object(["TableName": .string(TableName), "Key": DynamoDB.json(Key), "ConsistentRead": .bool(ConsistentRead)]) }
    }

    struct GetItemOutput: AWSJSONOutput {
        var Item: Item?

        init(json fields: [String: JSONValue]) throws(JSONTypeMismatch) {
            Item = try DynamoDB.item(in: fields, key: "Item")
        }
    }

    struct PutItemInput: AWSJSONInput {
        var TableName: String
        var Item: Item
        var ConditionExpression: String? = nil
        var ExpressionAttributeNames: [String: String]? = nil
        var ExpressionAttributeValues: Item? = nil

        var json: JSONValue {
            .members(["TableName": .string(TableName), "Item": DynamoDB.json(Item), "ConditionExpression": .stringIfPresent(ConditionExpression),
                      "ExpressionAttributeNames": DynamoDB.json(ExpressionAttributeNames),
                      "ExpressionAttributeValues": DynamoDB.json(ExpressionAttributeValues)])
        }
    }

    struct UpdateItemInput: AWSJSONInput {
        var TableName: String
        var Key: Item
        var UpdateExpression: String
        var ConditionExpression: String?
        var ExpressionAttributeNames: [String: String]?
        var ExpressionAttributeValues: Item?
        var ReturnValues: String

        var json: JSONValue {
            .members(["TableName": .string(TableName), "Key": DynamoDB.json(Key), "UpdateExpression": .string(UpdateExpression),
                      "ConditionExpression": .stringIfPresent(ConditionExpression),
                      "ExpressionAttributeNames": DynamoDB.json(ExpressionAttributeNames),
                      "ExpressionAttributeValues": DynamoDB.json(ExpressionAttributeValues), "ReturnValues": .string(ReturnValues)])
        }
    }

    /// The answer of `UpdateItem` with `ReturnValues`.
    struct AttributesOutput: AWSJSONOutput {
        var Attributes: Item?

        init(json fields: [String: JSONValue]) throws(JSONTypeMismatch) {
            Attributes = try DynamoDB.item(in: fields, key: "Attributes")
        }
    }

    struct DeleteItemInput: AWSJSONInput {
        var TableName: String
        var Key: Item
        var ConditionExpression: String?
        var ExpressionAttributeNames: [String: String]?
        var ExpressionAttributeValues: Item?

        var json: JSONValue {
            .members(["TableName": .string(TableName), "Key": DynamoDB.json(Key), "ConditionExpression": .stringIfPresent(ConditionExpression),
                      "ExpressionAttributeNames": DynamoDB.json(ExpressionAttributeNames),
                      "ExpressionAttributeValues": DynamoDB.json(ExpressionAttributeValues)])
        }
    }

    /// The input of `Query`, and of `Scan` (no key condition, index or order).
    struct QueryInput: AWSJSONInput {
        var TableName: String
        var IndexName: String?
        var KeyConditionExpression: String?
        var FilterExpression: String?
        var ExpressionAttributeNames: [String: String]?
        var ExpressionAttributeValues: Item?
        var Limit: Int?
        var ExclusiveStartKey: Item?
        var ConsistentRead: Bool?
        var ScanIndexForward: Bool?

        var json: JSONValue {
            .members(["TableName": .string(TableName), "IndexName": .stringIfPresent(IndexName),
                      "KeyConditionExpression": .stringIfPresent(KeyConditionExpression), "FilterExpression": .stringIfPresent(FilterExpression),
                      "ExpressionAttributeNames": DynamoDB.json(ExpressionAttributeNames),
                      "ExpressionAttributeValues": DynamoDB.json(ExpressionAttributeValues),
                      "Limit": Limit.map { .integer(Int64($0)) }, "ExclusiveStartKey": DynamoDB.json(ExclusiveStartKey),
                      "ConsistentRead": ConsistentRead.map(JSONValue.bool), "ScanIndexForward": ScanIndexForward.map(JSONValue.bool)])
        }
    }

    /// The answer of `Query` and of `Scan`.
    struct QueryOutput: AWSJSONOutput {
        var Items: [Item]?
        var LastEvaluatedKey: Item?

        init(json fields: [String: JSONValue]) throws(JSONTypeMismatch) {
            if let values = try fields.array("Items") {
                var items: [Item] = []
                items.reserveCapacity(values.count)
                for value in values { items.append(try DynamoDB.item(json: value, key: "Items")) }
                Items = items
            }
            LastEvaluatedKey = try DynamoDB.item(in: fields, key: "LastEvaluatedKey")
        }
    }

    /// An answer whose members we do not read.
    struct Empty: AWSJSONOutput {
        init(json fields: [String: JSONValue]) {}
    }
}
