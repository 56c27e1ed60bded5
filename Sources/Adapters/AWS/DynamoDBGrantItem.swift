#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulsePorts

/// One user's grant as a DynamoDB item (docs/design/dynamodb-vault.md): the value sealed,
/// the version a number, the listing attributes plain, one attribute each.
///
/// No token byte is ever in a plain attribute: the value (the token-set JSON) exists only as
/// `ct`, AES-256-GCM under a data key that exists only wrapped by KMS (`dk`).
enum DynamoDBGrantItem {
    /// The partition key: the user id.
    static let user = "user_id"
    /// The version: 1 on create, one more on every value write; the compare-and-swap's condition.
    static let version = "v"
    /// The sealed value: nonce, ciphertext, tag.
    static let ciphertext = "ct"
    /// The data key, wrapped by KMS under the user's encryption context.
    static let wrappedKey = "dk"
    /// The KMS key that wrapped it.
    static let keyID = "kid"
    /// When the data key was generated, in epoch seconds: bounds its reuse across processes.
    static let keyCreatedAt = "dk_at"
    /// When the value was last written, in epoch milliseconds (a listing's `lastWritten`).
    static let writtenAt = "written_ms"
    /// Present only while deleted: the end of the recovery window, in epoch seconds; the
    /// table's time-to-live attribute, so DynamoDB removes the item after it.
    static let purgeAt = "purge_at"
    /// Listing attribute `k` is stored as plain string attribute `a.k`.
    static let attributePrefix = "a."
    /// A value write's own random token, kept in the slot of the version it wrote
    /// (`wt` and the version modulo ``writeTokenSlots``): a retry whose first attempt landed
    /// unheard finds its token there even after later writes, each in a slot of its own.
    static let writeTokenPrefix = "wt"
    /// How many value writes' tokens an item keeps: a write is still known for its writer's
    /// own after this many less one writes past it.
    static let writeTokenSlots: Int64 = 4

    /// The sparse index of each indexed listing attribute (``IndexedGrantAttribute``), keyed
    /// by the attribute as stored, so it holds exactly the grants that carry it: keys only,
    /// since the caller reads each grant anyway.
    static func lookupIndex(_ attribute: IndexedGrantAttribute) -> DynamoDBTableDefinition.GlobalIndex {
        let name = switch attribute {
        case .googleSubject: "google-sub-index"
        case .refreshTokenPrefix: "rt-prefix-index"
        case .refreshTokenHash: "rt-hash-index"
        }
        return DynamoDBTableDefinition.GlobalIndex(
            name: name, partitionKey: .init(attributePrefix + attribute.rawValue, .string), sortKey: nil, projection: .keysOnly
        )
    }

    /// The table as `paypulse setup` and the template create it: the user id as key, the
    /// sparse due index and a sparse index per indexed attribute.
    static func table(named name: String) -> DynamoDBTableDefinition {
        DynamoDBTableDefinition(
            name: name, partitionKey: .init(user, .string), indexes: [DynamoDBDueIndex.definition] + IndexedGrantAttribute.allCases.map(lookupIndex)
        )
    }

    static func key(_ user: String) -> DynamoDBItem { [Self.user: .string(user)] }

    /// The whole item for a value write.
    static func item(
        user: String, version: Int64, sealed: SealedEnvelope, attributes: [String: String], writtenAt: Date, token: String
    ) -> DynamoDBItem {
        var item: DynamoDBItem = key(user)
        item[Self.version] = .integer(version)
        item.merge(valueAttributes(sealed: sealed, writtenAt: writtenAt, token: token, version: version)) { $1 }
        for (name, value) in attributes { item[attributePrefix + name] = .string(value) }
        return item
    }

    /// The attributes a value write of `version` sets, besides the version: its token in that version's slot.
    static func valueAttributes(sealed: SealedEnvelope, writtenAt: Date, token: String, version: Int64) -> DynamoDBItem {
        var attributes: DynamoDBItem = [
            ciphertext: .binary(sealed.ciphertext), wrappedKey: .binary(sealed.wrappedKey), keyID: .string(sealed.keyID),
            Self.writtenAt: .integer(Int64((writtenAt.timeIntervalSince1970 * 1000).rounded())), writeTokenSlot(version): .string(token),
        ]
        if let created = sealed.keyCreatedAt { attributes[keyCreatedAt] = .integer(Int64(created.timeIntervalSince1970)) }
        return attributes
    }

    /// The attribute that keeps the token of the value write of `version`.
    static func writeTokenSlot(_ version: Int64) -> String { writeTokenPrefix + String(version % writeTokenSlots) }

    /// A new write token, from the system generator.
    static func newWriteToken() -> String { SecretVersionID.random().rawValue }

    /// Whether `item` shows the value write of `version` that carried `token`: the item is at
    /// that version, or at a later one that has not yet reused its slot, and the slot holds
    /// the token. No other writer's item can: each token is random.
    static func wrote(_ item: DynamoDBItem, token: String, version: Int64) -> Bool {
        guard let current = item[Self.version]?.integerValue, current >= version, current - version < writeTokenSlots else { return false }
        return item[writeTokenSlot(version)]?.stringValue == token
    }

    static func attributes(of item: DynamoDBItem) -> [String: String] {
        var attributes: [String: String] = [:]
        for (name, value) in item where name.hasPrefix(attributePrefix) {
            if let string = value.stringValue { attributes[String(name.dropFirst(attributePrefix.count))] = string }
        }
        return attributes
    }

    static func version(of item: DynamoDBItem) -> GrantVersion? {
        item[version]?.integerValue.map { GrantVersion(String($0)) }
    }

    static func deletionDate(of item: DynamoDBItem) -> Date? {
        item[purgeAt]?.integerValue.map { Date(timeIntervalSince1970: Double($0)) }
    }

    static func lastWritten(of item: DynamoDBItem) -> Date? {
        item[writtenAt]?.integerValue.map { Date(timeIntervalSince1970: Double($0) / 1000) }
    }

    /// The sealed value, or `nil` when an attribute is missing or of another type.
    static func sealed(in item: DynamoDBItem) -> SealedEnvelope? {
        guard let ciphertext = item[ciphertext]?.binaryValue, let wrapped = item[wrappedKey]?.binaryValue,
              let keyID = item[keyID]?.stringValue
        else { return nil }
        let created = item[keyCreatedAt]?.integerValue.map { Date(timeIntervalSince1970: Double($0)) }
        return SealedEnvelope(ciphertext: ciphertext, wrappedKey: wrapped, keyID: keyID, keyCreatedAt: created)
    }

    /// `SET` clauses and placeholders for listing attributes (`#a0 = :a0, ...`).
    static func setAttributes(_ attributes: [String: String], into placeholders: inout DynamoDBExpressionValues) -> [String] {
        attributes.sorted { $0.key < $1.key }.enumerated().map { index, pair in
            placeholders.names["#a\(index)"] = attributePrefix + pair.key
            placeholders.values[":a\(index)"] = .string(pair.value)
            return "#a\(index) = :a\(index)"
        }
    }
}
