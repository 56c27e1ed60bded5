/// A table as `CreateTable` declares it: keys, global secondary indexes, on-demand billing.
package struct DynamoDBTableDefinition: Sendable, Equatable {
    /// A key attribute's type.
    package enum KeyType: String, Sendable {
        /// `S`.
        case string = "S"
        /// `N`.
        case number = "N"
        /// `B`.
        case binary = "B"
    }

    /// A key attribute: its name and type.
    package struct Key: Sendable, Equatable {
        /// The attribute's name.
        package var name: String
        /// The attribute's type.
        package var type: KeyType

        /// Creates a key attribute.
        package init(_ name: String, _ type: KeyType) {
            self.name = name
            self.type = type
        }
    }

    /// What an index copies from the table.
    package enum Projection: Sendable, Equatable {
        /// Every attribute.
        case all
        /// The table's and the index's keys only.
        case keysOnly
        /// The keys and the named attributes.
        case include([String])
    }

    /// A global secondary index. Items without its partition key attribute are not in it (a sparse index).
    package struct GlobalIndex: Sendable, Equatable {
        /// The index's name, for ``DynamoDBClient/query(table:index:keyCondition:filter:placeholders:limit:startKey:consistentRead:ascending:)``.
        package var name: String
        /// The index's partition key.
        package var partitionKey: Key
        /// The index's sort key, if any.
        package var sortKey: Key?
        /// What the index copies.
        package var projection: Projection

        /// Creates an index.
        package init(name: String, partitionKey: Key, sortKey: Key? = nil, projection: Projection = .all) {
            self.name = name
            self.partitionKey = partitionKey
            self.sortKey = sortKey
            self.projection = projection
        }
    }

    /// The table's name.
    package var name: String
    /// The table's partition key.
    package var partitionKey: Key
    /// The table's sort key, if any.
    package var sortKey: Key?
    /// Its global secondary indexes.
    package var indexes: [GlobalIndex]

    /// Creates a definition.
    package init(name: String, partitionKey: Key, sortKey: Key? = nil, indexes: [GlobalIndex] = []) {
        self.name = name
        self.partitionKey = partitionKey
        self.sortKey = sortKey
        self.indexes = indexes
    }
}
