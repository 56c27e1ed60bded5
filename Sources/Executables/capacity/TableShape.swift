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
        let table = try await DynamoDBClient(client: AWSTestClients.jsonClient(.dynamoDB, endpoint: endpoint)).describeTable(name)
        let keys = [table.partitionKey, table.sortKey].compactMap { $0?.name }
        let partition = table.partitionKey.name
        let indexes = table.indexes.map { index in
            IndexShape(
                name: index.name, keys: [index.partitionKey, index.sortKey].compactMap { $0?.name }, tableKeys: keys,
                projection: IndexShape.Projection(index.projection)
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
}

/// One global secondary index: an item is in it when it has every index key attribute (a
/// sparse index leaves the others out), and its entry holds the keys and the projection.
struct IndexShape: Sendable {
    enum Projection: Sendable {
        case all, keysOnly, include(Set<String>)

        init(_ projection: DynamoDBTableDefinition.Projection) {
            switch projection {
            case .all: self = .all
            case .keysOnly: self = .keysOnly
            case .include(let names): self = .include(Set(names))
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
