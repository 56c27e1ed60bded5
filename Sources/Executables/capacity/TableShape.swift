import Foundation
import PayPulseAWS
import PayPulseTestSupport

/// A DynamoDB table's keys and global secondary indexes, as `DescribeTable` tells them:
/// which writes also write an index, and how large its entries are.
struct TableShape: Sendable {
    let name: String
    let partitionKey: String
    /// Every key attribute of the table (partition and sort).
    let keys: [String]
    let indexes: [IndexShape]

    /// Asks moto (not through the proxy).
    static func describe(_ name: String, endpoint: String) async throws -> TableShape {
        let client = try AWSTestClients.jsonClient(.dynamoDB, endpoint: endpoint)
        let output: DescribeTableOutput = try await client.call("DescribeTable", DescribeTableInput(TableName: name))
        let table = output.Table
        let keys = table.KeySchema.map(\.AttributeName)
        guard let partition = table.KeySchema.first(where: { $0.KeyType == "HASH" })?.AttributeName else {
            throw CapacityError("table \(name) has no partition key")
        }
        let indexes = (table.GlobalSecondaryIndexes ?? []).map { index in
            IndexShape(
                name: index.IndexName, keys: index.KeySchema.map(\.AttributeName), tableKeys: keys,
                projection: IndexShape.Projection(type: index.Projection?.ProjectionType, attributes: index.Projection?.NonKeyAttributes)
            )
        }
        return TableShape(name: name, partitionKey: partition, keys: keys, indexes: indexes)
    }

    /// The same table with its indexes projecting `attributes` (besides the keys) instead:
    /// what another projection would cost, priced on the same measured writes.
    func projecting(_ attributes: Set<String>) -> TableShape {
        TableShape(
            name: name, partitionKey: partitionKey, keys: keys,
            indexes: indexes.map { IndexShape(name: $0.name, keys: $0.keys, tableKeys: $0.tableKeys, projection: .include(attributes)) }
        )
    }

    private struct DescribeTableInput: Encodable {
        let TableName: String
    }

    private struct DescribeTableOutput: Decodable {
        struct Key: Decodable {
            let AttributeName: String
            let KeyType: String
        }
        struct Projection: Decodable {
            let ProjectionType: String?
            let NonKeyAttributes: [String]?
        }
        struct Index: Decodable {
            let IndexName: String
            let KeySchema: [Key]
            let Projection: Projection?
        }
        struct Table: Decodable {
            let KeySchema: [Key]
            let GlobalSecondaryIndexes: [Index]?
        }
        let Table: Table
    }
}

/// One global secondary index: an item is in it when it has every index key attribute (a
/// sparse index leaves the others out), and its entry holds the keys and the projection.
struct IndexShape: Sendable {
    enum Projection: Sendable {
        case all, keysOnly, include(Set<String>)

        init(type: String?, attributes: [String]?) {
            switch type {
            case "KEYS_ONLY": self = .keysOnly
            case "INCLUDE": self = .include(Set(attributes ?? []))
            default: self = .all
            }
        }
    }

    let name: String
    /// The index's partition and sort key attributes.
    let keys: [String]
    let tableKeys: [String]
    let projection: Projection

    /// The item's entry in the index, `nil` when the item is not in it.
    func entry(of item: DynamoDBItem?) -> DynamoDBItem? {
        guard let item, keys.allSatisfy({ item[$0] != nil }) else { return nil }
        switch projection {
        case .all: return item
        case .keysOnly: return item.filter { keys.contains($0.key) || tableKeys.contains($0.key) }
        case .include(let names): return item.filter { keys.contains($0.key) || tableKeys.contains($0.key) || names.contains($0.key) }
        }
    }

    /// The index writes a write from `change.before` to `change.after` makes, by DynamoDB's
    /// rules for global secondary indexes: an entry put or deleted is one, an entry whose
    /// key changed two (the old deleted, the new put), an entry whose projected attributes
    /// changed one. Each costs one write unit per KB of the entry.
    func entryWrites(_ change: ItemChange) -> Int {
        switch (entry(of: change.before), entry(of: change.after)) {
        case (nil, nil): 0
        case (nil, _?), (_?, nil): 1
        case (let old?, let new?): keys.contains { old[$0] != new[$0] } ? 2 : (old == new ? 0 : 1)
        }
    }
}
