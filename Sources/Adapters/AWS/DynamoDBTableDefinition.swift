/// A table as `CreateTable` declares it: keys, global secondary indexes, on-demand billing.
public struct DynamoDBTableDefinition: Sendable, Equatable {
    /// A key attribute's type.
    public enum KeyType: String, Sendable {
        /// `S`.
        case string = "S"
        /// `N`.
        case number = "N"
        /// `B`.
        case binary = "B"
    }

    /// A key attribute: its name and type.
    public struct Key: Sendable, Equatable {
        /// The attribute's name.
        public var name: String
        /// The attribute's type.
        public var type: KeyType

        /// Creates a key attribute.
        public init(_ name: String, _ type: KeyType) {
            self.name = name
            self.type = type
        }
    }

    /// What an index copies from the table.
    public enum Projection: Sendable, Equatable {
        /// Every attribute.
        case all
        /// The table's and the index's keys only.
        case keysOnly
        /// The keys and the named attributes.
        case include([String])
    }

    /// A global secondary index. Items without its partition key attribute are not in it (a sparse index).
    public struct GlobalIndex: Sendable, Equatable {
        /// The index's name, for ``DynamoDBClient/query(table:index:keyCondition:filter:placeholders:limit:startKey:consistentRead:ascending:)``.
        public var name: String
        /// The index's partition key.
        public var partitionKey: Key
        /// The index's sort key, if any.
        public var sortKey: Key?
        /// What the index copies.
        public var projection: Projection

        /// Creates an index.
        public init(name: String, partitionKey: Key, sortKey: Key? = nil, projection: Projection = .all) {
            self.name = name
            self.partitionKey = partitionKey
            self.sortKey = sortKey
            self.projection = projection
        }
    }

    /// The table's name.
    public var name: String
    /// The table's partition key.
    public var partitionKey: Key
    /// The table's sort key, if any.
    public var sortKey: Key?
    /// Its global secondary indexes.
    public var indexes: [GlobalIndex]

    /// Creates a definition.
    public init(name: String, partitionKey: Key, sortKey: Key? = nil, indexes: [GlobalIndex] = []) {
        self.name = name
        self.partitionKey = partitionKey
        self.sortKey = sortKey
        self.indexes = indexes
    }
}
