#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulsePorts

/// The ``GrantStore`` port on a DynamoDB table with KMS envelope encryption: one item per
/// user (``DynamoDBGrantItem``), the value sealed by an ``EnvelopeCipher`` under the user's
/// id, every write conditional, so the compare-and-swap is DynamoDB's own.
///
/// Value and listing attributes are one item, written together: no other writer can slip
/// between them (``writesAttributesWithValue``).
///
/// A value write whose answer is lost (a reset, a cut answer, a timeout) is retried by the
/// client, and the retry fails its condition on the item the first attempt wrote, or on
/// one another writer wrote past it meanwhile. So every value write carries a random token
/// of its own, kept in the item in a slot of its version (``DynamoDBGrantItem/wrote(_:token:version:)``),
/// and a failed condition is checked against the item: one still holding our token is our
/// own write, which succeeded, even when overtaken (the caller then meets the newer value
/// as after any write: a conflict on its next compare-and-swap, never a second change).
///
/// The write date an item keeps (its listing's `lastWritten`, and what its due key counts
/// from) is the one its value tells (``GrantDuePolicy/valueWritten``) when it tells one:
/// a copied grant is due when its token is, not a lifetime after the copy.
package struct DynamoDBGrantStore: GrantStore {
    let client: DynamoDBClient
    let table: String
    let cipher: EnvelopeCipher
    let due: GrantDuePolicy
    let now: @Sendable () -> Date

    /// Serves grants from `table` through `client`, sealing values with `cipher`, keying
    /// the due index by `due` (the refresh job's, so its listing finds what it takes).
    package init(
        client: DynamoDBClient, table: String, cipher: EnvelopeCipher, due: GrantDuePolicy, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.client = client
        self.table = table
        self.cipher = cipher
        self.due = due
        self.now = now
    }

    /// The name of the due index that ``listDue(userPrefix:dueBy:cursor:limit:)`` queries.
    package static let dueIndexName = DynamoDBDueIndex.name
    /// The name of the index ``users(with:equalTo:)`` queries for `attribute`.
    package static func lookupIndexName(_ attribute: IndexedGrantAttribute) -> String { DynamoDBGrantItem.lookupIndex(attribute).name }
    /// How many partition keys (buckets) the due index spreads its entries over.
    package static let dueIndexBuckets = DynamoDBDueIndex.buckets

    /// The DynamoDB and KMS operations each port operation can call: on the table, its due
    /// index and the key ``DataKeyCache`` wraps data keys with. Every conditional write
    /// reads the item again when its condition fails; sealing generates a data key (or takes
    /// a cached one) and opening decrypts one.
    package static func operations(for operation: GrantOperation) -> [AWSOperation] {
        let get = DynamoDBClient.getItemOperation, update = DynamoDBClient.updateItemOperation
        let seal = KMSClient.generateDataKeyOperation, open = KMSClient.decryptOperation
        return switch operation {
        case .state: [get]
        case .read: [get, open]
        case .create: [seal, DynamoDBClient.putItemOperation, get]
        case .replace: [get, seal, update]
        case .mark, .delete, .restore: [get, update]
        case .list: [DynamoDBClient.scanOperation]
        case .listDue, .findByAttribute: [DynamoDBClient.queryIndexOperation]
        }
    }

    /// The same table and keys, keyed by another due rule: what a process configured for
    /// another refresh mode writes.
    package func keyed(by due: GrantDuePolicy) -> DynamoDBGrantStore {
        DynamoDBGrantStore(client: client, table: table, cipher: cipher, due: due, now: now)
    }

    /// Creates the table as the template declares it (partition key `user_id`, the due
    /// and subject indexes) and turns on its time to live; an existing table gains the indexes
    /// and the time to live it lacks and is otherwise left as it is.
    package func createTableIfNeeded() async throws {
        do {
            try await client.createTable(DynamoDBGrantItem.table(named: table))
        } catch let error as AWSError where error.type == "ResourceInUseException" {
            // A table of an earlier version gains the indexes it lacks (the lookup indexes):
            // DynamoDB builds each from the items while the table stays in use, one at a
            // time ("Only 1 online index can be created or deleted simultaneously per table"),
            // so each waits for the one before.
            try await mapped {
                let existing = Set(try await client.indexNames(of: table))
                for index in DynamoDBGrantItem.table(named: table).indexes where !existing.contains(index.name) {
                    while !(try await client.indexesBeingBuilt(of: table)).isEmpty { try await Task.sleep(for: .seconds(5)) }
                    try await client.addIndex(index, to: table)
                }
                try await client.ensureTimeToLive(table: table, attribute: DynamoDBGrantItem.purgeAt)
            }
            return
        } catch {
            throw StoreError(mapping: error)
        }
        try await mapped { try await client.updateTimeToLive(table: table, attribute: DynamoDBGrantItem.purgeAt) }
    }

    package var writesAttributesWithValue: Bool { true }

    package func state(of user: String) async throws -> GrantState {
        try await DynamoDBGrantStates(client: client, table: table).state(of: user)
    }

    package func read(_ user: String) async throws -> GrantValue {
        let item = try await existing(user)
        guard DynamoDBGrantItem.deletionDate(of: item) == nil else { throw StoreError.scheduledForDeletion }
        guard let version = DynamoDBGrantItem.version(of: item), let sealed = DynamoDBGrantItem.sealed(in: item) else {
            throw StoreError.corrupt.with(message: "the item of user \(user) lacks its version or sealed value")
        }
        let plaintext = try await mapped { try await cipher.open(sealed, userID: user) }
        return GrantValue(value: String(decoding: plaintext, as: UTF8.self), version: version)
    }

    @discardableResult
    package func create(_ user: String, value: String, attributes: [String: String]) async throws -> GrantVersion {
        let sealed = try await mapped { try await cipher.seal(Array(value.utf8), userID: user) }
        let written = due.written(value, now: now()), token = DynamoDBGrantItem.newWriteToken()
        var item = DynamoDBGrantItem.item(user: user, version: 1, sealed: sealed, attributes: attributes, writtenAt: written, token: token)
        item.merge(DynamoDBDueIndex.attributes(user: user, due: due.dueDate(attributes, written))) { $1 }
        do {
            try await client.putItem(
                table: table, item: item, condition: "attribute_not_exists(#user)",
                placeholders: DynamoDBExpressionValues(names: ["#user": DynamoDBGrantItem.user])
            )
        } catch let error as AWSError where error.isConditionalCheckFailed {
            let item = try await mapped { try await client.getItem(table: table, key: DynamoDBGrantItem.key(user)) }
            if let item, DynamoDBGrantItem.wrote(item, token: token, version: 1) { return GrantVersion("1") }
            throw StoreError.alreadyExists.with(message: "user \(user) already has a grant")
        } catch {
            throw StoreError(mapping: error)
        }
        return GrantVersion("1")
    }

    @discardableResult
    package func replace(_ user: String, expected: GrantVersion, value: String, attributes: [String: String]?) async throws -> GrantVersion {
        guard let expectedNumber = Int64(expected.rawValue) else {
            throw StoreError.conflict.with(message: "version \(expected) is not one of this store's")
        }
        // Kept attributes still key the due index from this write's date.
        var indexed = attributes ?? [:]
        if attributes == nil { indexed = DynamoDBGrantItem.attributes(of: try await existing(user)) }
        let sealed = try await mapped { try await cipher.seal(Array(value.utf8), userID: user) }
        let written = due.written(value, now: now()), token = DynamoDBGrantItem.newWriteToken()
        var placeholders = DynamoDBExpressionValues(
            names: ["#v": DynamoDBGrantItem.version, "#purge": DynamoDBGrantItem.purgeAt],
            values: [":expected": .integer(expectedNumber), ":next": .integer(expectedNumber + 1)]
        )
        var clauses = ["#v = :next"]
        for (index, (name, newValue)) in DynamoDBGrantItem.valueAttributes(sealed: sealed, writtenAt: written, token: token, version: expectedNumber + 1)
            .sorted(by: { $0.key < $1.key }).enumerated() {
            placeholders.names["#w\(index)"] = name
            placeholders.values[":w\(index)"] = newValue
            clauses.append("#w\(index) = :w\(index)")
        }
        clauses += DynamoDBGrantItem.setAttributes(attributes ?? [:], into: &placeholders)
        let index = DynamoDBDueIndex.clauses(user: user, due: due.dueDate(indexed, written), into: &placeholders)
        try await conditionalUpdate(
            user, update: Self.update(set: clauses + index.set, remove: index.remove), condition: "#v = :expected AND attribute_not_exists(#purge)",
            placeholders: placeholders, lost: .conflict, landed: { DynamoDBGrantItem.wrote($0, token: token, version: expectedNumber + 1) }
        )
        return GrantVersion(String(expectedNumber + 1))
    }

    /// Reads the item first: the due index is keyed from all its attributes and its last
    /// write, which a mark naming some attributes does not carry. Marks are rare here (tags
    /// never lag the value on this store): a repair or a migration.
    package func mark(_ user: String, attributes: [String: String], expected: GrantVersion?) async throws {
        let item = try await existing(user)
        if let expected, DynamoDBGrantItem.version(of: item) != expected {
            throw StoreError.conflict.with(message: "the grant of user \(user) changed since version \(expected)")
        }
        guard !attributes.isEmpty else { return }
        let merged = DynamoDBGrantItem.attributes(of: item).merging(attributes) { $1 }
        let written = DynamoDBGrantItem.lastWritten(of: item) ?? now()
        var placeholders = DynamoDBExpressionValues(names: ["#user": DynamoDBGrantItem.user])
        // The value may move between the read above and this write: condition on it too.
        let condition = "attribute_exists(#user)" + (try Self.versionClause(expected, into: &placeholders))
        let clauses = DynamoDBGrantItem.setAttributes(attributes, into: &placeholders)
        let index = DynamoDBDueIndex.clauses(user: user, due: due.dueDate(merged, written), into: &placeholders)
        try await conditionalUpdate(
            user, update: Self.update(set: clauses + index.set, remove: index.remove), condition: condition,
            placeholders: placeholders, lost: expected == nil ? .notFound : .conflict
        )
    }

    /// ` AND #v = :expected` for a write only while `expected` is current; nothing without one.
    /// - Throws: ``StoreError/conflict`` for a version this store never wrote.
    private static func versionClause(_ expected: GrantVersion?, into placeholders: inout DynamoDBExpressionValues) throws -> String {
        guard let expected else { return "" }
        guard let number = Int64(expected.rawValue) else { throw StoreError.conflict.with(message: "version \(expected) is not one of this store's") }
        placeholders.names["#v"] = DynamoDBGrantItem.version
        placeholders.values[":expected"] = .integer(number)
        return " AND #v = :expected"
    }

    /// `SET ... REMOVE ...`, either part left out when empty.
    private static func update(set: [String], remove: [String]) -> String {
        var parts: [String] = []
        if !set.isEmpty { parts.append("SET " + set.joined(separator: ", ")) }
        if !remove.isEmpty { parts.append("REMOVE " + remove.joined(separator: ", ")) }
        return parts.joined(separator: " ")
    }

    /// The version is part of the delete's condition: a newer value is never deleted.
    @discardableResult
    package func delete(_ user: String, expected: GrantVersion?, recoveryWindowDays: Int) async throws -> Date {
        guard (7...30).contains(recoveryWindowDays) else {
            throw StoreError.invalidRequest.with(message: "the recovery window must be 7 to 30 days, not \(recoveryWindowDays)")
        }
        let deletion = Date(timeIntervalSince1970: (now().timeIntervalSince1970 + Double(recoveryWindowDays * 86_400)).rounded(.up))
        var placeholders = DynamoDBExpressionValues(
            names: ["#user": DynamoDBGrantItem.user, "#purge": DynamoDBGrantItem.purgeAt],
            values: [":purge": .integer(Int64(deletion.timeIntervalSince1970))]
        )
        let condition = "attribute_exists(#user) AND attribute_not_exists(#purge)" + (try Self.versionClause(expected, into: &placeholders))
        try await conditionalUpdate(
            user, update: "SET #purge = :purge", condition: condition, placeholders: placeholders,
            // Deleted at the version expected: this delete landed on an earlier attempt, or another's did.
            lost: expected == nil ? .scheduledForDeletion : .conflict,
            landed: { expected != nil && DynamoDBGrantItem.deletionDate(of: $0) != nil && DynamoDBGrantItem.version(of: $0) == expected }
        )
        return deletion
    }

    package func restore(_ user: String) async throws {
        try await conditionalUpdate(
            user, update: "REMOVE #purge", condition: "attribute_exists(#user)",
            placeholders: DynamoDBExpressionValues(names: ["#user": DynamoDBGrantItem.user, "#purge": DynamoDBGrantItem.purgeAt]),
            lost: .notFound
        )
    }

    /// The user's item, deleted or not.
    /// - Throws: ``StoreError/notFound`` when there is none.
    func existing(_ user: String) async throws -> DynamoDBItem {
        try await DynamoDBGrantStates(client: client, table: table).item(of: user)
    }

    /// An `UpdateItem` on the user's existing item; when its condition fails, the item is read
    /// to tell why: our own update, landed on an earlier attempt (`landed`, then no error),
    /// none (``StoreError/notFound``), deleted (``StoreError/scheduledForDeletion``) or, when
    /// none of these, `lost`.
    private func conditionalUpdate(
        _ user: String, update: String, condition: String, placeholders: DynamoDBExpressionValues, lost: StoreError,
        landed: (DynamoDBItem) -> Bool = { _ in false }
    ) async throws {
        do {
            // The condition `attribute_exists` keeps UpdateItem from creating an item.
            var guarded = placeholders
            guarded.names["#user"] = DynamoDBGrantItem.user
            _ = try await client.updateItem(
                table: table, key: DynamoDBGrantItem.key(user), update: update, condition: "attribute_exists(#user) AND (\(condition))",
                placeholders: guarded
            )
        } catch let error as AWSError where error.isConditionalCheckFailed {
            let item = try await existing(user)
            if landed(item) { return }
            if lost != .scheduledForDeletion, lost != .notFound, DynamoDBGrantItem.deletionDate(of: item) != nil {
                throw StoreError.scheduledForDeletion.with(message: "the grant of user \(user) is scheduled for deletion")
            }
            throw lost.with(message: "the grant of user \(user) changed meanwhile (\(lost.codeName))")
        } catch {
            throw StoreError(mapping: error)
        }
    }

    func mapped<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as EnvelopeError {
            throw StoreError(envelope: error)
        } catch {
            throw StoreError(mapping: error)
        }
    }
}

extension StoreError {
    /// A sealed value that does not open is corrupt for this store; a KMS refusal is the
    /// store being unavailable (retryable) or refusing us.
    init(envelope error: EnvelopeError) {
        if let type = error.kmsErrorType {
            self = (error.isRetryable ? StoreError.unavailable : StoreError.accessDenied).with(message: "KMS refused: \(type)")
        } else {
            self = StoreError.corrupt.with(message: "a sealed value did not open (\(error))")
        }
    }
}

/// The grants' states on the same table, without the value: no cipher, so a function given
/// only this (user-profile) builds no KMS client and cannot decrypt a token.
package struct DynamoDBGrantStates: GrantStates {
    let client: DynamoDBClient
    let table: String

    /// Reads states from `table`.
    package init(client: DynamoDBClient, table: String) {
        self.client = client
        self.table = table
    }

    package func state(of user: String) async throws -> GrantState {
        let item = try await item(of: user)
        return GrantState(
            attributes: DynamoDBGrantItem.attributes(of: item), deletionDate: DynamoDBGrantItem.deletionDate(of: item),
            currentVersion: DynamoDBGrantItem.version(of: item)
        )
    }

    /// The user's item as stored (its sealed value unopened).
    /// - Throws: ``StoreError/notFound`` when the user has no item.
    func item(of user: String) async throws -> DynamoDBItem {
        let found: DynamoDBItem?
        do {
            found = try await client.getItem(table: table, key: DynamoDBGrantItem.key(user))
        } catch {
            throw StoreError(mapping: error)
        }
        guard let found else { throw StoreError.notFound.with(message: "user \(user) has no grant") }
        return found
    }
}

/// Listings: every grant by prefix (a scan), and the grants that may be due (the due index).
extension DynamoDBGrantStore {
    /// The due index lists only what may be due.
    package var listsOnlyDue: Bool { true }

    /// A scan filtered by prefix: its cost grows with the table. The refresh job selects
    /// from the due index instead (``listDue(userPrefix:dueBy:cursor:limit:)``).
    package func list(userPrefix: String, includeDeleted: Bool, cursor: String?, limit: Int) async throws -> GrantPage {
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
    package func listDue(userPrefix: String, dueBy: Date, cursor: String?, limit: Int) async throws -> GrantPage {
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

    package func users(with attribute: IndexedGrantAttribute, equalTo value: String) async throws -> [String] {
        let index = DynamoDBGrantItem.lookupIndex(attribute)
        let placeholders = DynamoDBExpressionValues(names: ["#key": index.partitionKey.name], values: [":value": .string(value)])
        var users: [String] = []
        var lastKey: DynamoDBItem?
        repeat {
            let page = try await mapped {
                try await client.query(
                    table: table, index: index.name, keyCondition: "#key = :value", placeholders: placeholders, startKey: lastKey
                )
            }
            users += page.items.compactMap { $0[DynamoDBGrantItem.user]?.stringValue }
            lastKey = page.lastEvaluatedKey
        } while lastKey != nil
        return users
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
