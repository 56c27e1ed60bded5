#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Any JSON document. Events are parsed into this first so that the shape can be
/// detected (payload 1.0, 2.0, schedule) before anything is required of it.
enum JSONValue: Sendable, Equatable, Codable {
    case null
    case bool(Bool)
    /// Whole numbers, kept apart from `number` so that `1700000000` stays `1700000000`.
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
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

    func encode(to encoder: any Encoder) throws {
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

    /// Parses `bytes`; anything the decoder refuses is `notJSON`.
    static func parse(_ bytes: [UInt8]) throws(EventDecodingError) -> JSONValue {
        do {
            return try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
        } catch {
            throw .notJSON
        }
    }

    /// The member `key` of an object; `nil` for a missing key or a non-object.
    subscript(key: String) -> JSONValue? {
        if case .object(let fields) = self { fields[key] } else { nil }
    }

    var stringValue: String? {
        if case .string(let value) = self { value } else { nil }
    }

    var boolValue: Bool? {
        if case .bool(let value) = self { value } else { nil }
    }

    var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { value } else { nil }
    }

    var arrayValue: [JSONValue]? {
        if case .array(let value) = self { value } else { nil }
    }

    /// The value as one string: strings as they are, numbers and booleans as JSON writes
    /// them, arrays and objects as compact JSON text with sorted keys; `nil` for `null`.
    var flattened: String? {
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
    var jsonBytes: [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding a JSONValue cannot fail: it holds only JSON-representable values
        // (a non-finite Double cannot come out of the parser).
        return (try? Array(encoder.encode(self))) ?? Array("null".utf8)
    }
}

extension [String: JSONValue] {
    /// The string-valued members; other values (`null`, numbers, objects) are skipped.
    var stringMembers: [String: String] {
        var result: [String: String] = [:]
        for (key, value) in self {
            if let text = value.stringValue { result[key] = text }
        }
        return result
    }
}
