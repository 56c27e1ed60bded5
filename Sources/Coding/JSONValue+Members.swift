/// A member of the wrong JSON type, found while reading a document by hand.
public struct JSONTypeMismatch: Error, Equatable, Sendable {
    /// The member's key.
    public var key: String

    /// Creates the error.
    public init(key: String) { self.key = key }
}

/// Typed reads of an object's members with `Codable`'s `decodeIfPresent` rules: a missing
/// member or `null` is `nil`, a member of another type throws. Readers of hot documents
/// (events, AWS answers, token sets) use them instead of `JSONDecoder`.
extension [String: JSONValue] {
    /// The string member `key`.
    /// - Throws: ``JSONTypeMismatch`` when it is neither a string nor `null`.
    public func string(_ key: String) throws(JSONTypeMismatch) -> String? {
        switch self[key] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        default: throw JSONTypeMismatch(key: key)
        }
    }

    /// The boolean member `key`.
    /// - Throws: ``JSONTypeMismatch`` when it is neither a boolean nor `null`.
    public func bool(_ key: String) throws(JSONTypeMismatch) -> Bool? {
        switch self[key] {
        case nil, .null?: return nil
        case .bool(let value)?: return value
        default: throw JSONTypeMismatch(key: key)
        }
    }

    /// The integer member `key` (a whole number in `Int`'s range).
    /// - Throws: ``JSONTypeMismatch`` for any other value but `null`.
    public func integer(_ key: String) throws(JSONTypeMismatch) -> Int? {
        switch self[key] {
        case nil, .null?: return nil
        case .integer(let value)?:
            guard let result = Int(exactly: value) else { throw JSONTypeMismatch(key: key) }
            return result
        default: throw JSONTypeMismatch(key: key)
        }
    }

    /// The number member `key` as a `Double` (whole or not).
    /// - Throws: ``JSONTypeMismatch`` for any other value but `null`.
    public func double(_ key: String) throws(JSONTypeMismatch) -> Double? {
        switch self[key] {
        case nil, .null?: return nil
        case .integer(let value)?: return Double(value)
        case .number(let value)?: return value
        default: throw JSONTypeMismatch(key: key)
        }
    }

    /// The array-of-strings member `key`.
    /// - Throws: ``JSONTypeMismatch`` when it is not `null` or an array of strings.
    public func strings(_ key: String) throws(JSONTypeMismatch) -> [String]? {
        switch self[key] {
        case nil, .null?: return nil
        case .array(let items)?:
            var result: [String] = []
            result.reserveCapacity(items.count)
            for item in items {
                guard case .string(let text) = item else { throw JSONTypeMismatch(key: key) }
                result.append(text)
            }
            return result
        default: throw JSONTypeMismatch(key: key)
        }
    }

    /// The object member `key`.
    /// - Throws: ``JSONTypeMismatch`` when it is neither an object nor `null`.
    public func object(_ key: String) throws(JSONTypeMismatch) -> [String: JSONValue]? {
        switch self[key] {
        case nil, .null?: return nil
        case .object(let value)?: return value
        default: throw JSONTypeMismatch(key: key)
        }
    }

    /// The array member `key`.
    /// - Throws: ``JSONTypeMismatch`` when it is neither an array nor `null`.
    public func array(_ key: String) throws(JSONTypeMismatch) -> [JSONValue]? {
        switch self[key] {
        case nil, .null?: return nil
        case .array(let value)?: return value
        default: throw JSONTypeMismatch(key: key)
        }
    }
}
