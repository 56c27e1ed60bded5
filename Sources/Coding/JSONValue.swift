#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Any JSON document, kept with its JSON types: events are parsed into it before their
/// shape is known, and request bodies so that validation can say exactly what was wrong
/// ("expires_in must be an integer, not a string").
package enum JSONValue: Sendable, Equatable, Codable {
    case null
    case bool(Bool)
    /// Whole numbers, kept apart from `number` so that `1700000000` stays `1700000000`.
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The member `key` of an object; `nil` for a missing key or a non-object.
    package subscript(key: String) -> JSONValue? {
        if case .object(let fields) = self { fields[key] } else { nil }
    }

    package var stringValue: String? {
        if case .string(let value) = self { value } else { nil }
    }

    package var boolValue: Bool? {
        if case .bool(let value) = self { value } else { nil }
    }

    package var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { value } else { nil }
    }

    package var arrayValue: [JSONValue]? {
        if case .array(let value) = self { value } else { nil }
    }

    /// The value as one string: strings as they are, numbers and booleans as JSON writes
    /// them, arrays and objects as compact JSON text with sorted keys; `nil` for `null`.
    package var flattened: String? {
        switch self {
        case .null: nil
        case .string(let value): value
        case .bool(let value): value ? "true" : "false"
        case .integer(let value): String(value)
        case .number(let value): String(value)
        case .array, .object: String(decoding: jsonBytes, as: UTF8.self)
        }
    }

    /// Compact JSON text with sorted keys and unescaped slashes, so equal values give
    /// equal bytes.
    package var jsonBytes: [UInt8] {
        if let bytes = compactJSON() { return bytes }
        // Encoding a JSONValue cannot fail: it holds only JSON-representable values
        // (a non-finite Double cannot come out of the parser).
        return (try? JSONCoding.encode(self)) ?? Array("null".utf8)
    }

    /// The JSON type's name, for messages.
    package var typeName: String {
        switch self {
        case .string: "a string"
        case .integer, .number: "a number"
        case .bool: "a boolean"
        case .null: "null"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

extension JSONValue {
    /// The document exactly as `JSONDecoder` decodes it into a `JSONValue`, read by
    /// ``fastParse(_:)`` (a tenth of the instructions) wherever that answers.
    ///
    /// - Parameter bytes: One JSON document.
    /// - Returns: The value.
    /// - Throws: `JSONDecoder`'s error for bytes that are not JSON.
    package static func decode(_ bytes: [UInt8]) throws -> JSONValue {
        if let value = fastParse(bytes) { return value }
        return try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
    }

    /// The document read by ``JSONBodyParser`` when that agrees with `JSONDecoder`, else
    /// `nil`: callers then decode with `JSONDecoder`, so no answer ever differs.
    ///
    /// They agree on every document the strict parser accepts without a fraction, an
    /// exponent or an integer past `Int64` (`JSONDecoder` reads `1.0` as an integer). The
    /// rest (such numbers, a repeated key, a lone surrogate, bytes that are not UTF-8,
    /// nesting past 32, text that is not JSON) is `nil`.
    package static func fastParse(_ bytes: [UInt8]) -> JSONValue? {
        guard let value = try? JSONBodyParser.parse(bytes), !value.holdsFloatingPoint else { return nil }
        return value
    }

    /// Whether a `.number` occurs anywhere in the value.
    var holdsFloatingPoint: Bool {
        switch self {
        case .number: true
        case .null, .bool, .integer, .string: false
        case .array(let items): items.contains { $0.holdsFloatingPoint }
        case .object(let fields): fields.values.contains { $0.holdsFloatingPoint }
        }
    }
}

/// A member of the wrong JSON type, found while reading a document by hand.
package struct JSONTypeMismatch: Error, Equatable, Sendable {
    /// The member's key.
    package var key: String

    /// Creates the error.
    package init(key: String) { self.key = key }
}

/// Typed reads of an object's members with `Codable`'s `decodeIfPresent` rules: a missing
/// member or `null` is `nil`, a member of another type throws. Readers of hot documents
/// (events, AWS answers, token sets) use them instead of `JSONDecoder`.
extension [String: JSONValue] {
    /// The string member `key`.
    /// - Throws: ``JSONTypeMismatch`` when it is neither a string nor `null`.
    package func string(_ key: String) throws(JSONTypeMismatch) -> String? {
        switch self[key] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        default: throw JSONTypeMismatch(key: key)
        }
    }

    /// The boolean member `key`.
    /// - Throws: ``JSONTypeMismatch`` when it is neither a boolean nor `null`.
    package func bool(_ key: String) throws(JSONTypeMismatch) -> Bool? {
        switch self[key] {
        case nil, .null?: return nil
        case .bool(let value)?: return value
        default: throw JSONTypeMismatch(key: key)
        }
    }

    /// The integer member `key` (a whole number in `Int`'s range).
    /// - Throws: ``JSONTypeMismatch`` for any other value but `null`.
    package func integer(_ key: String) throws(JSONTypeMismatch) -> Int? {
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
    package func double(_ key: String) throws(JSONTypeMismatch) -> Double? {
        switch self[key] {
        case nil, .null?: return nil
        case .integer(let value)?: return Double(value)
        case .number(let value)?: return value
        default: throw JSONTypeMismatch(key: key)
        }
    }

    /// The array-of-strings member `key`.
    /// - Throws: ``JSONTypeMismatch`` when it is not `null` or an array of strings.
    package func strings(_ key: String) throws(JSONTypeMismatch) -> [String]? {
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
    package func object(_ key: String) throws(JSONTypeMismatch) -> [String: JSONValue]? {
        switch self[key] {
        case nil, .null?: return nil
        case .object(let value)?: return value
        default: throw JSONTypeMismatch(key: key)
        }
    }

    /// The array member `key`.
    /// - Throws: ``JSONTypeMismatch`` when it is neither an array nor `null`.
    package func array(_ key: String) throws(JSONTypeMismatch) -> [JSONValue]? {
        switch self[key] {
        case nil, .null?: return nil
        case .array(let value)?: return value
        default: throw JSONTypeMismatch(key: key)
        }
    }
}

extension JSONValue {
    /// Compact JSON text byte for byte as ``JSONCoding/encode(_:)`` writes this value (keys
    /// sorted by their UTF-8 bytes, slashes unescaped, `\b \t \n \f \r` and other control
    /// characters as `\u00xx`), without `JSONEncoder`'s generic machinery; `nil` when the
    /// value holds a floating-point number or a non-ASCII key, whose exact text only
    /// `JSONEncoder` knows.
    package func compactJSON() -> [UInt8]? {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        return write(into: &output) ? output : nil
    }

    private func write(into output: inout [UInt8]) -> Bool {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: value ? "true".utf8 : "false".utf8)
        case .integer(let value): output.append(contentsOf: String(value).utf8)
        case .number: return false
        case .string(let value): Self.writeString(value, into: &output)
        case .array(let items):
            output.append(UInt8(ascii: "["))
            for (position, item) in items.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                guard item.write(into: &output) else { return false }
            }
            output.append(UInt8(ascii: "]"))
        case .object(let fields):
            guard fields.keys.allSatisfy({ $0.utf8.allSatisfy { $0 < 0x80 } }) else { return false }
            output.append(UInt8(ascii: "{"))
            for (position, key) in fields.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }).enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                Self.writeString(key, into: &output)
                output.append(UInt8(ascii: ":"))
                guard fields[key]!.write(into: &output) else { return false }
            }
            output.append(UInt8(ascii: "}"))
        }
        return true
    }

    /// A JSON string literal with `JSONEncoder`'s escapes.
    static func writeString(_ text: String, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            // Runs without an escape are copied whole.
            var runStart = 0
            for (offset, byte) in bytes.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<offset]))
                writeEscape(byte, into: &output)
                runStart = offset + 1
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
        }
        output.append(UInt8(ascii: "\""))
    }

    private static func writeEscape(_ byte: UInt8, into output: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""): output.append(contentsOf: #"\""#.utf8)
        case UInt8(ascii: "\\"): output.append(contentsOf: #"\\"#.utf8)
        case 0x08: output.append(contentsOf: #"\b"#.utf8)
        case 0x09: output.append(contentsOf: #"\t"#.utf8)
        case 0x0A: output.append(contentsOf: #"\n"#.utf8)
        case 0x0C: output.append(contentsOf: #"\f"#.utf8)
        case 0x0D: output.append(contentsOf: #"\r"#.utf8)
        case 0..<0x20:
            output.append(contentsOf: #"\u00"#.utf8)
            output.append(hexDigits[Int(byte >> 4)])
            output.append(hexDigits[Int(byte & 0x0F)])
        default: output.append(byte)
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
