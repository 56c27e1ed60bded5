import PayPulseCoding

// The item operations' shapes written and read by hand (see AWSJSONShape): they are the
// token store's warm paths.

extension DynamoDB {
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
}

extension DynamoDB.PutItemInput: AWSJSONInput {
    var json: JSONValue {
        .members(["TableName": .string(TableName), "Item": DynamoDB.json(Item), "ConditionExpression": .stringIfPresent(ConditionExpression),
                  "ExpressionAttributeNames": DynamoDB.json(ExpressionAttributeNames),
                  "ExpressionAttributeValues": DynamoDB.json(ExpressionAttributeValues)])
    }
}

extension DynamoDB.UpdateItemInput: AWSJSONInput {
    var json: JSONValue {
        .members(["TableName": .string(TableName), "Key": DynamoDB.json(Key), "UpdateExpression": .string(UpdateExpression),
                  "ConditionExpression": .stringIfPresent(ConditionExpression),
                  "ExpressionAttributeNames": DynamoDB.json(ExpressionAttributeNames),
                  "ExpressionAttributeValues": DynamoDB.json(ExpressionAttributeValues), "ReturnValues": .string(ReturnValues)])
    }
}

extension DynamoDB.AttributesOutput: AWSJSONOutput {
    init(json fields: [String: JSONValue]) throws(JSONTypeMismatch) {
        self.init(Attributes: try DynamoDB.item(in: fields, key: "Attributes"))
    }
}

extension DynamoDB.DeleteItemInput: AWSJSONInput {
    var json: JSONValue {
        .members(["TableName": .string(TableName), "Key": DynamoDB.json(Key), "ConditionExpression": .stringIfPresent(ConditionExpression),
                  "ExpressionAttributeNames": DynamoDB.json(ExpressionAttributeNames),
                  "ExpressionAttributeValues": DynamoDB.json(ExpressionAttributeValues)])
    }
}

extension DynamoDB.QueryInput: AWSJSONInput {
    var json: JSONValue {
        .members(["TableName": .string(TableName), "IndexName": .stringIfPresent(IndexName),
                  "KeyConditionExpression": .stringIfPresent(KeyConditionExpression), "FilterExpression": .stringIfPresent(FilterExpression),
                  "ExpressionAttributeNames": DynamoDB.json(ExpressionAttributeNames),
                  "ExpressionAttributeValues": DynamoDB.json(ExpressionAttributeValues),
                  "Limit": Limit.map { .integer(Int64($0)) }, "ExclusiveStartKey": DynamoDB.json(ExclusiveStartKey),
                  "ConsistentRead": ConsistentRead.map(JSONValue.bool), "ScanIndexForward": ScanIndexForward.map(JSONValue.bool)])
    }
}

extension DynamoDB.QueryOutput: AWSJSONOutput {
    init(json fields: [String: JSONValue]) throws(JSONTypeMismatch) {
        var items: [DynamoDB.Item]?
        if let values = try fields.array("Items") {
            var read: [DynamoDB.Item] = []
            read.reserveCapacity(values.count)
            for value in values { read.append(try DynamoDB.item(json: value, key: "Items")) }
            items = read
        }
        self.init(Items: items, LastEvaluatedKey: try DynamoDB.item(in: fields, key: "LastEvaluatedKey"))
    }
}
