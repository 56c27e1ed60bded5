#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulsePorts

/// The ``SecurityEventLedger`` on a DynamoDB table: one item per event, key `jti` (S), and
/// `expires_at` (N, whole seconds since 1970, rounded up), the table's time-to-live
/// attribute.
///
/// DynamoDB deletes an expired item some time after it expires (typically within days), so
/// expiry is decided here against the ledger's clock: ``contains(_:)`` reads an expired item
/// as absent, and ``record(_:until:)``'s condition lets a write replace it.
package struct DynamoDBSecurityEventLedger: SecurityEventLedger {
    /// The key attribute.
    package static let jtiAttribute = "jti"
    /// The expiry attribute, the table's time to live.
    package static let expiresAtAttribute = "expires_at"

    /// Present on a claim, naming its claimant: a record replaces it.
    package static let leaseAttribute = "lease"

    /// What the receiver calls, all on the table: claim and record (`PutItem`), release
    /// (`DeleteItem`), ``contains(_:)`` (`GetItem`).
    package static let operations = [DynamoDBClient.getItemOperation, DynamoDBClient.putItemOperation, DynamoDBClient.deleteItemOperation]

    let client: DynamoDBClient
    let table: String
    let now: @Sendable () -> Date

    /// A ledger on `table` through `client`.
    /// - Parameters:
    ///   - client: The DynamoDB client.
    ///   - table: The table (`SECURITY_EVENTS_TABLE`).
    ///   - now: The clock records expire by; tests pass a fake one.
    package init(client: DynamoDBClient, table: String, now: @escaping @Sendable () -> Date = { Date() }) {
        self.client = client
        self.table = table
        self.now = now
    }

    /// The table as `paypulse setup` creates it and template.yaml declares it (checked
    /// against `deploy/security-events-table.json`): partition key `jti`, nothing else.
    package static func table(named name: String) -> DynamoDBTableDefinition {
        DynamoDBTableDefinition(name: name, partitionKey: .init(jtiAttribute, .string))
    }

    /// Creates the table and turns on its time to live on `expires_at`; an existing table is
    /// left as it is.
    /// - Throws: ``StoreError`` when DynamoDB refuses or cannot be reached.
    package func createTableIfNeeded() async throws {
        try await client.createTableIfNeeded(Self.table(named: table), timeToLive: Self.expiresAtAttribute)
    }

    /// Whether `jti` was recorded and its record has not expired (a consistent read); a claim
    /// is not a record.
    /// - Throws: ``StoreError``: `invalid_request` for an empty `jti`, `unavailable` when
    ///   DynamoDB cannot be reached, `corrupt` for an item without a readable expiry.
    package func contains(_ jti: String) async throws -> Bool {
        try Self.check(jti)
        let item = try await StoreError.mapping { try await client.getItem(table: table, key: [Self.jtiAttribute: .string(jti)]) }
        guard let item, item[Self.leaseAttribute] == nil else { return false }
        guard case .number(let text) = item[Self.expiresAtAttribute], let expiresAt = Double(text) else {
            throw StoreError.corrupt.with(message: "the security event item \(jti) lacks a numeric \(Self.expiresAtAttribute)")
        }
        return expiresAt > now().timeIntervalSince1970
    }

    /// Claims `jti` for `claimant` until `expiry` with a conditional `PutItem`: it writes when
    /// no item is there, the one there has expired, or it is `claimant`'s own claim (a retry
    /// of a write whose answer was lost).
    /// - Returns: `false` when a live record or another claimant's live claim is there (it stays).
    /// - Throws: ``StoreError``: `invalid_request` for an empty `jti` or an expiry beyond any
    ///   date, `unavailable` when DynamoDB cannot be reached.
    package func claim(_ jti: String, by claimant: String, until expiry: Date) async throws -> Bool {
        try await put(jti, until: expiry, claimant: claimant, condition: "attribute_not_exists(#jti) OR #expires <= :now OR #lease = :claimant")
    }

    /// Deletes `jti`'s item while it is `claimant`'s claim.
    /// - Throws: ``StoreError`` when DynamoDB cannot be reached.
    package func release(_ jti: String, by claimant: String) async throws {
        try Self.check(jti)
        do {
            try await client.deleteItem(
                table: table, key: [Self.jtiAttribute: .string(jti)], condition: "#lease = :claimant",
                placeholders: DynamoDBExpressionValues(names: ["#lease": Self.leaseAttribute], values: [":claimant": .string(claimant)])
            )
        } catch let refused as AWSError where refused.isConditionalCheckFailed {
            return  // recorded for good meanwhile, taken over, or never claimed
        } catch {
            throw StoreError(mapping: error)
        }
    }

    /// Records `jti` until `expiry` with a conditional `PutItem`: it writes when no item is
    /// there, the one there has expired, or it is a claim; a failed condition means a live
    /// record is there, which stays, and is success.
    /// - Throws: ``StoreError``: `invalid_request` for an empty `jti` or an expiry beyond any
    ///   date, `unavailable` when DynamoDB cannot be reached.
    package func record(_ jti: String, until expiry: Date) async throws {
        _ = try await put(jti, until: expiry, claimant: nil, condition: "attribute_not_exists(#jti) OR #expires <= :now OR attribute_exists(#lease)")
    }

    /// One conditional `PutItem` of `jti` (a claim when `claimant` is given); `false` when the
    /// condition failed.
    private func put(_ jti: String, until expiry: Date, claimant: String?, condition: String) async throws -> Bool {
        try Self.check(jti)
        // Whole seconds, as DynamoDB's time to live reads them; up, so a record never ends early.
        let expiresAt = expiry.timeIntervalSince1970.rounded(.up)
        guard expiresAt.magnitude < 1e15 else {
            throw StoreError.invalidRequest.with(message: "expiry \(expiry) is out of range")
        }
        // Down: `expires_at <= :now` with whole-second expiries is then exactly "expired by now".
        let now = Int64(self.now().timeIntervalSince1970.rounded(.down))
        var item: DynamoDBItem = [Self.jtiAttribute: .string(jti), Self.expiresAtAttribute: .integer(Int64(expiresAt))]
        var values: DynamoDBItem = [":now": .integer(now)]
        if let claimant {
            item[Self.leaseAttribute] = .string(claimant)
            values[":claimant"] = .string(claimant)
        }
        var names = ["#jti": Self.jtiAttribute, "#expires": Self.expiresAtAttribute]
        if condition.contains("#lease") { names["#lease"] = Self.leaseAttribute }
        do {
            try await client.putItem(
                table: table, item: item, condition: condition, placeholders: DynamoDBExpressionValues(names: names, values: values)
            )
            return true
        } catch let error as AWSError where error.isConditionalCheckFailed {
            return false
        } catch {
            throw StoreError(mapping: error)
        }
    }

    /// An empty `jti` is refused before DynamoDB's `ValidationException`, with the message the
    /// other ledgers give.
    private static func check(_ jti: String) throws {
        if jti.isEmpty { throw StoreError.invalidRequest.with(message: "an empty jti") }
    }
}
