#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulsePorts

/// Listings: every grant by prefix (a scan), and the grants that may be due (the due index).
extension DynamoDBGrantStore {
    /// The due index lists only what may be due.
    public var listsOnlyDue: Bool { true }

    /// A scan filtered by prefix: its cost grows with the table. The refresh job selects
    /// from the due index instead (``listDue(userPrefix:dueBy:cursor:limit:)``).
    public func list(userPrefix: String, includeDeleted: Bool, cursor: String?, limit: Int) async throws -> GrantPage {
        var placeholders = DynamoDBExpressionValues(names: ["#user": DynamoDBGrantItem.user], values: [":prefix": .string(userPrefix)])
        var filter = "begins_with(#user, :prefix)"
        if !includeDeleted {
            placeholders.names["#purge"] = DynamoDBGrantItem.purgeAt
            filter += " AND attribute_not_exists(#purge)"
        }
        let page = try await mapped {
            try await client.scan(
                table: table, filter: filter, placeholders: placeholders, limit: max(limit, 1),
                startKey: cursor.map(DynamoDBGrantItem.key)
            )
        }
        return GrantPage(grants: page.items.compactMap(Self.summary), cursor: page.lastEvaluatedKey?[DynamoDBGrantItem.user]?.stringValue)
    }

    /// Queries of the due index (eventually consistent, as an index's reads are): the
    /// grants keyed at or before `dueBy`, deleted ones filtered out. One call reads bucket
    /// after bucket until it has `limit` grants or a bucket has more pages; the cursor says
    /// where to go on. A run on a small table costs one query per bucket.
    public func listDue(userPrefix: String, dueBy: Date, cursor: String?, limit: Int) async throws -> GrantPage {
        var position = DynamoDBDueIndex.Cursor(bucket: 0, lastKey: nil)
        if let cursor {
            guard let parsed = DynamoDBDueIndex.Cursor(cursor) else {
                throw StoreError.invalidRequest.with(message: "not a cursor of this listing")
            }
            position = parsed
        }
        var grants: [GrantSummary] = []
        while true {
            let page = try await queryDue(bucket: position.bucket, userPrefix: userPrefix, dueBy: dueBy, limit: max(limit - grants.count, 1), after: position.lastKey)
            grants += page.items.compactMap(Self.summary)
            if let lastKey = page.lastEvaluatedKey {
                return GrantPage(grants: grants, cursor: DynamoDBDueIndex.Cursor(bucket: position.bucket, lastKey: lastKey).encoded)
            }
            guard position.bucket + 1 < DynamoDBDueIndex.buckets else { return GrantPage(grants: grants, cursor: nil) }
            position = DynamoDBDueIndex.Cursor(bucket: position.bucket + 1, lastKey: nil)
            if grants.count >= limit { return GrantPage(grants: grants, cursor: position.encoded) }
        }
    }

    /// One page of one bucket of the due index.
    private func queryDue(bucket: Int, userPrefix: String, dueBy: Date, limit: Int, after lastKey: DynamoDBItem?) async throws -> DynamoDBPage {
        var placeholders = DynamoDBExpressionValues(
            names: ["#bucket": DynamoDBDueIndex.bucket, "#due": DynamoDBDueIndex.dueAt, "#purge": DynamoDBGrantItem.purgeAt],
            values: [":bucket": .string(String(bucket)), ":dueBy": .integer(Int64(dueBy.timeIntervalSince1970.rounded(.down)))]
        )
        var filter = "attribute_not_exists(#purge)"
        if !userPrefix.isEmpty {
            placeholders.names["#user"] = DynamoDBGrantItem.user
            placeholders.values[":prefix"] = .string(userPrefix)
            filter += " AND begins_with(#user, :prefix)"
        }
        return try await mapped {
            try await client.query(
                table: table, index: DynamoDBDueIndex.name, keyCondition: "#bucket = :bucket AND #due <= :dueBy", filter: filter,
                placeholders: placeholders, limit: limit, startKey: lastKey
            )
        }
    }

    /// A listed item as a summary; `nil` without a user id.
    private static func summary(_ item: DynamoDBItem) -> GrantSummary? {
        guard let user = item[DynamoDBGrantItem.user]?.stringValue else { return nil }
        return GrantSummary(
            user: user, attributes: DynamoDBGrantItem.attributes(of: item), lastWritten: DynamoDBGrantItem.lastWritten(of: item),
            deletionDate: DynamoDBGrantItem.deletionDate(of: item)
        )
    }
}
