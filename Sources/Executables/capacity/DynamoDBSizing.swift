import PayPulseAWS

/// Item sizes and capacity units by DynamoDB's published rules (Developer Guide, "Item
/// sizes and formats", "Read/write capacity mode", 2025-2026): an item's size is the sum of
/// its attribute names' UTF-8 bytes and its values' sizes (a string its UTF-8 bytes, a
/// binary its raw bytes, a number 1 byte per two significant digits plus 1, a boolean 1);
/// a write costs one write unit per KB (1,024 bytes) of the larger of the item before and
/// after it, a strongly consistent read one read unit per 4 KB (an eventually consistent
/// one half), never less than one of either.
enum DynamoDBSizing {
    static func bytes(_ item: DynamoDBItem) -> Int {
        item.reduce(0) { $0 + $1.key.utf8.count + bytes($1.value) }
    }

    static func bytes(_ value: DynamoDBValue) -> Int {
        switch value {
        case .string(let text): text.utf8.count
        case .binary(let data): data.count
        case .bool: 1
        case .number(let text): numberBytes(text)
        }
    }

    /// 1 byte per two significant digits, plus 1 (leading and trailing zeroes trimmed).
    static func numberBytes(_ text: String) -> Int {
        let digits = text.filter(\.isNumber).drop { $0 == "0" }
        let significant = String(digits.reversed()).drop { $0 == "0" }.count
        return (significant + 1) / 2 + 1
    }

    /// Write units for writing `item` (of `bytes`).
    static func writeUnits(bytes: Int) -> Int { max(1, (bytes + 1_023) / 1_024) }
    static func writeUnits(_ item: DynamoDBItem) -> Int { writeUnits(bytes: bytes(item)) }

    /// Strongly consistent read units for reading `bytes` (an absent item costs the minimum, 1).
    static func readUnits(bytes: Int) -> Int { max(1, (bytes + 4_095) / 4_096) }

    /// The larger of the two sides of a change, 0 when neither exists.
    static func largerBytes(_ change: ItemChange) -> Int {
        max(change.before.map(bytes) ?? 0, change.after.map(bytes) ?? 0)
    }
}
