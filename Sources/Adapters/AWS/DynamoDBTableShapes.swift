import PayPulseCoding

// Shapes of table set-up and description: a table with indexes, its time-to-live attribute,
// and `DescribeTable` read back into a ``DynamoDBTableDefinition``. Cold paths (tools and
// local set-up), written and read the same way as the item operations.
extension DynamoDB {
    struct CreateTableInput: AWSJSONInput {
        var table: DynamoDBTableDefinition

        /// Each key attribute is declared once, however many keys use it; billing on demand.
        var json: JSONValue {
            var declared: Set<String> = []
            var definitions: [JSONValue] = []
            let keys = [table.partitionKey, table.sortKey].compactMap { $0 } + table.indexes.flatMap { [$0.partitionKey, $0.sortKey].compactMap { $0 } }
            for key in keys where declared.insert(key.name).inserted {
                definitions.append(.object(["AttributeName": .string(key.name), "AttributeType": .string(key.type.rawValue)]))
            }
            let indexes = table.indexes.map(Self.index)
            return .members(["TableName": .string(table.name), "AttributeDefinitions": .array(definitions),
                             "KeySchema": Self.schema(table.partitionKey, table.sortKey),
                             "GlobalSecondaryIndexes": indexes.isEmpty ? nil : .array(indexes), "BillingMode": .string("PAY_PER_REQUEST")])
        }

        /// One index as `CreateTable` and `UpdateTable` declare it.
        static func index(_ index: DynamoDBTableDefinition.GlobalIndex) -> JSONValue {
            let projection: JSONValue = switch index.projection {
            case .all: .object(["ProjectionType": .string("ALL")])
            case .keysOnly: .object(["ProjectionType": .string("KEYS_ONLY")])
            case .include(let names): .object(["ProjectionType": .string("INCLUDE"), "NonKeyAttributes": .strings(names)])
            }
            return .object(["IndexName": .string(index.name), "KeySchema": schema(index.partitionKey, index.sortKey), "Projection": projection])
        }

        private static func schema(_ partition: DynamoDBTableDefinition.Key, _ sort: DynamoDBTableDefinition.Key?) -> JSONValue {
            .array([.object(["AttributeName": .string(partition.name), "KeyType": .string("HASH")])]
                + (sort.map { [.object(["AttributeName": .string($0.name), "KeyType": .string("RANGE")])] } ?? []))
        }
    }

    /// `UpdateTable` creating one global secondary index on a table that lacks it.
    struct CreateIndexInput: AWSJSONInput {
        var table: String
        var index: DynamoDBTableDefinition.GlobalIndex

        var json: JSONValue {
            let keys = [index.partitionKey, index.sortKey].compactMap { $0 }
            return .object([
                "TableName": .string(table),
                "AttributeDefinitions": .array(keys.map { .object(["AttributeName": .string($0.name), "AttributeType": .string($0.type.rawValue)]) }),
                "GlobalSecondaryIndexUpdates": .array([.object(["Create": CreateTableInput.index(index)])]),
            ])
        }
    }

    struct UpdateTimeToLiveInput: AWSJSONInput {
        var TableName: String
        var AttributeName: String
        var Enabled: Bool

        var json: JSONValue {
            .object(["TableName": .string(TableName),
                     "TimeToLiveSpecification": .object(["AttributeName": .string(AttributeName), "Enabled": .bool(Enabled)])])
        }
    }

    /// The answer of `DescribeTimeToLive`: the attribute and its status (`ENABLED`,
    /// `DISABLED`, ...), both absent while none was ever set.
    struct TimeToLiveOutput: AWSJSONOutput {
        var attribute: String?
        var status: String?

        init(json fields: [String: JSONValue]) throws(JSONTypeMismatch) {
            let description = try fields.object("TimeToLiveDescription")
            attribute = try description?.string("AttributeName")
            status = try description?.string("TimeToLiveStatus")
        }
    }

    struct DescribeTableInput: AWSJSONInput {
        var TableName: String

        var json: JSONValue { .object(["TableName": .string(TableName)]) }
    }

    /// The names of a table's global secondary indexes, from `DescribeTable`: all a set-up
    /// needs to add what is missing, read without the keys' types (moto leaves an index
    /// added by `UpdateTable` out of `AttributeDefinitions`).
    struct IndexNamesOutput: AWSJSONOutput {
        var names: [String]
        /// Each index's `IndexStatus` (`CREATING`, `ACTIVE`...), where the answer gives one.
        var statuses: [String: String]

        init(json fields: [String: JSONValue]) throws(JSONTypeMismatch) {
            guard let table = try fields.object("Table") else { throw JSONTypeMismatch(key: "Table") }
            names = []
            statuses = [:]
            for index in try table.array("GlobalSecondaryIndexes") ?? [] {
                guard case .object(let entry) = index, let name = try entry.string("IndexName") else { throw JSONTypeMismatch(key: "GlobalSecondaryIndexes") }
                names.append(name)
                statuses[name] = try entry.string("IndexStatus")
            }
        }
    }

    /// The answer of `DescribeTable`: the keys, their types and the global secondary indexes.
    struct DescribeTableOutput: AWSJSONOutput {
        var table: DynamoDBTableDefinition

        init(json fields: [String: JSONValue]) throws(JSONTypeMismatch) {
            guard let table = try fields.object("Table"), let name = try table.string("TableName") else { throw JSONTypeMismatch(key: "Table") }
            var types: [String: DynamoDBTableDefinition.KeyType] = [:]
            for definition in try table.array("AttributeDefinitions") ?? [] {
                guard case .object(let pair) = definition, let attribute = try pair.string("AttributeName"),
                      let type = try pair.string("AttributeType").flatMap(DynamoDBTableDefinition.KeyType.init) else {
                    throw JSONTypeMismatch(key: "AttributeDefinitions")
                }
                types[attribute] = type
            }
            func keys(_ schema: [JSONValue]?) throws(JSONTypeMismatch) -> (DynamoDBTableDefinition.Key, DynamoDBTableDefinition.Key?) {
                var partition: DynamoDBTableDefinition.Key?
                var sort: DynamoDBTableDefinition.Key?
                for element in schema ?? [] {
                    guard case .object(let pair) = element, let attribute = try pair.string("AttributeName"), let type = types[attribute] else {
                        throw JSONTypeMismatch(key: "KeySchema")
                    }
                    switch try pair.string("KeyType") {
                    case "HASH": partition = .init(attribute, type)
                    case "RANGE": sort = .init(attribute, type)
                    default: throw JSONTypeMismatch(key: "KeyType")
                    }
                }
                guard let partition else { throw JSONTypeMismatch(key: "KeySchema") }
                return (partition, sort)
            }
            let (partition, sort) = try keys(try table.array("KeySchema"))
            var indexes: [DynamoDBTableDefinition.GlobalIndex] = []
            for index in try table.array("GlobalSecondaryIndexes") ?? [] {
                guard case .object(let entry) = index, let indexName = try entry.string("IndexName") else { throw JSONTypeMismatch(key: "GlobalSecondaryIndexes") }
                let (indexPartition, indexSort) = try keys(try entry.array("KeySchema"))
                let projection = try entry.object("Projection")
                let kind: DynamoDBTableDefinition.Projection = switch try projection?.string("ProjectionType") {
                case "KEYS_ONLY": .keysOnly
                case "INCLUDE": .include(try projection?.strings("NonKeyAttributes") ?? [])
                default: .all
                }
                indexes.append(.init(name: indexName, partitionKey: indexPartition, sortKey: indexSort, projection: kind))
            }
            self.table = DynamoDBTableDefinition(name: name, partitionKey: partition, sortKey: sort, indexes: indexes)
        }
    }
}
