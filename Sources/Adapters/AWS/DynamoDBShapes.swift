import PayPulseCoding

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
