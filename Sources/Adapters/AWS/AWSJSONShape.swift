import PayPulseCoding

/// An operation's input: its one encoding is its JSON as a value, which
/// ``JSONValue/jsonBytes`` writes (keys sorted; AWS reads members in any order).
protocol AWSJSONInput {
    /// The request body as a JSON value.
    var json: JSONValue { get }
}

/// An operation's answer: its one decoding reads the members of the parsed object under
/// `Codable`'s `decodeIfPresent` rules (missing or `null` optionals are `nil`; a wrong type
/// throws), and ignores members it does not know.
protocol AWSJSONOutput {
    /// Reads the answer.
    /// - Throws: ``JSONTypeMismatch`` for a member of the wrong type.
    init(json fields: [String: JSONValue]) throws(JSONTypeMismatch)
}

extension AWSJSONOutput {
    /// The answer in `payload` (an empty body is `{}`).
    ///
    /// The strict parser reads it: AWS's dates are fractional epoch seconds, which the
    /// readers take as `Double` whether written `1.5` or `1`, and no reader takes an integer,
    /// so how a number is written never matters. What the strict parser refuses (a repeated
    /// key, nesting past 32, a lone surrogate) is read as `JSONDecoder` reads it.
    /// - Throws: `JSONDecoder`'s error for bytes that are not JSON, ``JSONTypeMismatch``
    ///   for a document that is not an object or a member of the wrong type.
    static func read(_ payload: [UInt8]) throws -> Self {
        let bytes = payload.isEmpty ? Array("{}".utf8) : payload
        let value = try (try? JSONBodyParser.parse(bytes)) ?? JSONValue.decode(bytes)
        guard case .object(let fields) = value else { throw JSONTypeMismatch(key: "") }
        return try Self(json: fields)
    }
}

extension JSONValue {
    /// An object of the members that are not `nil`, as AWS's optional members are left out.
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
