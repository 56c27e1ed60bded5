import PayPulseCoding

/// An operation's input written without `JSONEncoder`: its JSON as a value, which
/// ``JSONValue/compactJSON()`` writes (keys sorted; AWS reads members in any order).
protocol AWSJSONInput {
    /// The request body as a JSON value.
    var json: JSONValue { get }
}

/// An operation's answer read without `JSONDecoder`, from the members of the parsed object
/// under `Codable`'s rules (missing or `null` optionals are `nil`; a wrong type throws).
protocol AWSJSONOutput {
    /// Reads the answer.
    /// - Throws: ``JSONTypeMismatch`` for a member of the wrong type.
    init(json fields: [String: JSONValue]) throws(JSONTypeMismatch)
}

extension JSONValue {
    /// An object of the members that are not `nil`, as synthesized `Encodable` omits them.
    static func members(_ pairs: KeyValuePairs<String, JSONValue?>) -> JSONValue {
        var fields: [String: JSONValue] = [:]
        fields.reserveCapacity(pairs.count)
        for (key, value) in pairs { if let value { fields[key] = value } }
        return .object(fields)
    }

    /// `.string`, or `nil` (member left out) for `nil`.
    static func stringIfPresent(_ text: String?) -> JSONValue? { text.map(JSONValue.string) }

    /// An array of strings.
    static func strings(_ texts: [String]) -> JSONValue { .array(texts.map(JSONValue.string)) }
}
