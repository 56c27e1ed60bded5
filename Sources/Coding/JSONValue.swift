#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Any JSON document, kept with its JSON types: events are parsed into it before their
/// shape is known, and request bodies so that validation can say exactly what was wrong
/// ("expires_in must be an integer, not a string").
public enum JSONValue: Sendable, Equatable, Codable {
    case null
    case bool(Bool)
    /// Whole numbers, kept apart from `number` so that `1700000000` stays `1700000000`.
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
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

    public func encode(to encoder: any Encoder) throws {
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
    public subscript(key: String) -> JSONValue? {
        if case .object(let fields) = self { fields[key] } else { nil }
    }

    public var stringValue: String? {
        if case .string(let value) = self { value } else { nil }
    }

    public var boolValue: Bool? {
        if case .bool(let value) = self { value } else { nil }
    }

    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { value } else { nil }
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { value } else { nil }
    }

    /// The value as one string: strings as they are, numbers and booleans as JSON writes
    /// them, arrays and objects as compact JSON text with sorted keys; `nil` for `null`.
    public var flattened: String? {
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
    public var jsonBytes: [UInt8] {
        if let bytes = compactJSON() { return bytes }
        // Encoding a JSONValue cannot fail: it holds only JSON-representable values
        // (a non-finite Double cannot come out of the parser).
        return (try? JSONCoding.encode(self)) ?? Array("null".utf8)
    }

    /// The JSON type's name, for messages.
    public var typeName: String {
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
