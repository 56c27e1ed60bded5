/// Request and response shapes of the DynamoDB operations we call.
enum DynamoDB {
    /// An attribute value: strings, numbers (decimal text), binary (base64 text) and booleans;
    /// other kinds (lists, maps, sets, null) are read as absent.
    struct AttributeValue: Codable, Equatable {
        var S: String?
        var N: String?
        var B: String?
        var BOOL: Bool?

        static func string(_ value: String) -> AttributeValue { AttributeValue(S: value) }
    }

    typealias Item = [String: AttributeValue]

    struct GetItemInput: Encodable {
        var TableName: String
        var Key: Item
        var ConsistentRead: Bool
    }

    struct GetItemOutput: Decodable {
        var Item: Item?
    }

    struct PutItemInput: Encodable {
        var TableName: String
        var Item: Item
        var ConditionExpression: String? = nil
        var ExpressionAttributeNames: [String: String]? = nil
        var ExpressionAttributeValues: Item? = nil
    }

    struct AttributeDefinition: Encodable {
        var AttributeName: String
        var AttributeType: String
    }

    struct KeySchemaElement: Encodable {
        var AttributeName: String
        var KeyType: String
    }

    struct CreateTableInput: Encodable {
        var TableName: String
        var AttributeDefinitions: [AttributeDefinition]
        var KeySchema: [KeySchemaElement]
        var GlobalSecondaryIndexes: [GlobalSecondaryIndex]? = nil
        var BillingMode: String
    }

    struct Empty: Codable {}
}
