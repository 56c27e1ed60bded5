// Shapes of table set-up: a table with indexes, and its time-to-live attribute. Cold paths,
// so `JSONEncoder` writes them.
extension DynamoDB {
    struct Projection: Encodable {
        var ProjectionType: String
        var NonKeyAttributes: [String]?
    }

    struct GlobalSecondaryIndex: Encodable {
        var IndexName: String
        var KeySchema: [KeySchemaElement]
        var Projection: Projection
    }

    struct TimeToLiveSpecification: Encodable {
        var AttributeName: String
        var Enabled: Bool
    }

    struct UpdateTimeToLiveInput: Encodable {
        var TableName: String
        var TimeToLiveSpecification: TimeToLiveSpecification
    }
}

extension DynamoDB.CreateTableInput {
    init(_ table: DynamoDBTableDefinition) {
        func schema(_ partition: DynamoDBTableDefinition.Key, _ sort: DynamoDBTableDefinition.Key?) -> [DynamoDB.KeySchemaElement] {
            [.init(AttributeName: partition.name, KeyType: "HASH")] + (sort.map { [.init(AttributeName: $0.name, KeyType: "RANGE")] } ?? [])
        }
        // Each key attribute is declared once, however many keys use it.
        var declared: [String: DynamoDBTableDefinition.KeyType] = [:]
        var definitions: [DynamoDB.AttributeDefinition] = []
        let keys = [table.partitionKey, table.sortKey].compactMap { $0 } + table.indexes.flatMap { [$0.partitionKey, $0.sortKey].compactMap { $0 } }
        for key in keys where declared[key.name] == nil {
            declared[key.name] = key.type
            definitions.append(.init(AttributeName: key.name, AttributeType: key.type.rawValue))
        }
        let indexes = table.indexes.map { index -> DynamoDB.GlobalSecondaryIndex in
            let projection: DynamoDB.Projection = switch index.projection {
            case .all: .init(ProjectionType: "ALL")
            case .keysOnly: .init(ProjectionType: "KEYS_ONLY")
            case .include(let names): .init(ProjectionType: "INCLUDE", NonKeyAttributes: names)
            }
            return .init(IndexName: index.name, KeySchema: schema(index.partitionKey, index.sortKey), Projection: projection)
        }
        self.init(
            TableName: table.name, AttributeDefinitions: definitions, KeySchema: schema(table.partitionKey, table.sortKey),
            GlobalSecondaryIndexes: indexes.isEmpty ? nil : indexes, BillingMode: "PAY_PER_REQUEST"
        )
    }
}
