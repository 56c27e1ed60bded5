import PayPulseCoding

// The DynamoDB shapes of the warm paths, written and read by hand (see AWSJSONShape).

extension DynamoDB.AttributeValue {
    var json: JSONValue {
        .members(["S": .stringIfPresent(S), "N": .stringIfPresent(N), "B": .stringIfPresent(B), "BOOL": BOOL.map(JSONValue.bool)])
    }

    init(json value: JSONValue) throws(JSONTypeMismatch) {
        guard case .object(let fields) = value else { throw JSONTypeMismatch(key: "AttributeValue") }
        self.init(S: try fields.string("S"), N: try fields.string("N"), B: try fields.string("B"), BOOL: try fields.bool("BOOL"))
    }
}

extension DynamoDB.GetItemInput: AWSJSONInput {
    var json: JSONValue {
        .object(["TableName": .string(TableName), "Key": .object(Key.mapValues(\.json)), "ConsistentRead": .bool(ConsistentRead)])
    }
}

extension DynamoDB.GetItemOutput: AWSJSONOutput {
    init(json fields: [String: JSONValue]) throws(JSONTypeMismatch) {
        guard let item = try fields.object("Item") else {
            self.init(Item: nil)
            return
        }
        var read: DynamoDB.Item = [:]
        for (name, value) in item { read[name] = try DynamoDB.AttributeValue(json: value) }
        self.init(Item: read)
    }
}

extension DynamoDB.Empty: AWSJSONOutput {
    init(json fields: [String: JSONValue]) {}
}
