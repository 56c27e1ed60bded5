// Shapes of the item operations beyond the users table's GetItem/PutItem: conditional
// writes, updates, deletes and queries.
extension DynamoDB {
    struct UpdateItemInput: Encodable {
        var TableName: String
        var Key: Item
        var UpdateExpression: String
        var ConditionExpression: String?
        var ExpressionAttributeNames: [String: String]?
        var ExpressionAttributeValues: Item?
        var ReturnValues: String
    }

    struct AttributesOutput: Decodable {
        var Attributes: Item?
    }

    struct DeleteItemInput: Encodable {
        var TableName: String
        var Key: Item
        var ConditionExpression: String?
        var ExpressionAttributeNames: [String: String]?
        var ExpressionAttributeValues: Item?
    }

    /// The input of `Query`, and of `Scan` (no key condition, index or order).
    struct QueryInput: Encodable {
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
    }

    /// The answer of `Query` and of `Scan`.
    struct QueryOutput: Decodable {
        var Items: [Item]?
        var LastEvaluatedKey: Item?
    }
}
