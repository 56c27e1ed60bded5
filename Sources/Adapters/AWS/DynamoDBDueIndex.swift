import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulsePorts

/// The sparse global secondary index the refresh job selects due grants from
/// (docs/design/dynamodb-vault.md): an item is in it only while its ``GrantDuePolicy``
/// gives a date, keyed by one of ``buckets`` partitions and that date, so a run queries
/// each bucket for dates up to its bound and reads the grants due, not the table.
enum DynamoDBDueIndex {
    /// The index's name.
    static let name = "due-index"
    /// Its partition key: the user's bucket, `"0"` to `"3"`.
    static let bucket = "due_bucket"
    /// Its sort key: the due date, in epoch seconds.
    static let dueAt = "due_at"
    /// How many partition keys the index spreads over. Every value write moves a grant's
    /// key, and one partition key takes 1,000 writes a second: four take 4,000, about
    /// fourteen times a million grants' eager refreshes (280/s), while a run costs four
    /// queries at least.
    static let buckets = 4

    /// The index as the table declares it. Projecting every attribute lets a listing show
    /// the grants' attributes and dates without a read per grant (the sealed value is copied
    /// too, still sealed).
    static var definition: DynamoDBTableDefinition.GlobalIndex {
        .init(name: name, partitionKey: .init(bucket, .string), sortKey: .init(dueAt, .number), projection: .all)
    }

    /// A user's bucket: the first byte of the SHA-256 of the id, so users spread evenly
    /// whatever their ids look like.
    static func bucket(of user: String) -> Int {
        Int(Array(SHA256.hash(data: Array(user.utf8)))[0]) % buckets
    }

    /// The index attributes of a grant due at `date`; empty when it is never due.
    static func attributes(user: String, due date: Date?) -> DynamoDBItem {
        guard let date else { return [:] }
        return [bucket: .string(String(bucket(of: user))), dueAt: .integer(Int64(date.timeIntervalSince1970.rounded(.down)))]
    }

    /// The update clauses that put a grant in the index at `date`, or take it out.
    static func clauses(user: String, due date: Date?, into placeholders: inout DynamoDBExpressionValues) -> (set: [String], remove: [String]) {
        placeholders.names["#dueBucket"] = bucket
        placeholders.names["#dueAt"] = dueAt
        let values = attributes(user: user, due: date)
        guard let bucketValue = values[bucket], let dueValue = values[dueAt] else { return ([], ["#dueBucket", "#dueAt"]) }
        placeholders.values[":dueBucket"] = bucketValue
        placeholders.values[":dueAt"] = dueValue
        return (["#dueBucket = :dueBucket", "#dueAt = :dueAt"], [])
    }

    /// A listing position: the bucket being read and where its last page ended.
    struct Cursor: Equatable {
        var bucket: Int
        var lastKey: DynamoDBItem?

        /// `bucket` alone, or `bucket`, user id and due date joined by `|` (a user id has no `|`).
        var encoded: String {
            guard let user = lastKey?[DynamoDBGrantItem.user]?.stringValue, let due = lastKey?[dueAt]?.integerValue else { return String(bucket) }
            return "\(bucket)|\(due)|\(user)"
        }

        init(bucket: Int, lastKey: DynamoDBItem?) {
            self.bucket = bucket
            self.lastKey = lastKey
        }

        /// Reads ``encoded``; `nil` when it is not one.
        init?(_ text: String) {
            let parts = text.split(separator: "|", maxSplits: 2, omittingEmptySubsequences: false)
            guard let bucket = Int(parts[0]), (0..<DynamoDBDueIndex.buckets).contains(bucket) else { return nil }
            self.bucket = bucket
            guard parts.count == 3 else {
                guard parts.count == 1 else { return nil }
                return
            }
            guard let due = Int64(parts[1]) else { return nil }
            let user = String(parts[2])
            lastKey = [DynamoDBGrantItem.user: .string(user), DynamoDBDueIndex.bucket: .string(String(bucket)), dueAt: .integer(due)]
        }
    }
}
