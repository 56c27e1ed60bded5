#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Any JSON document, for printing stored values with their tokens redacted.
enum JSONValue: Codable, Equatable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
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
        case .string(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .null: try container.encodeNil()
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The same document with every value under a `*token` key replaced by a marker.
    func redactingTokens() -> JSONValue {
        switch self {
        case .object(let fields):
            var redacted: [String: JSONValue] = [:]
            for (key, value) in fields {
                if key.lowercased().hasSuffix("token"), case .string(let secret) = value {
                    redacted[key] = .string("<redacted: \(secret.utf8.count) bytes>")
                } else {
                    redacted[key] = value.redactingTokens()
                }
            }
            return .object(redacted)
        case .array(let items):
            return .array(items.map { $0.redactingTokens() })
        default:
            return self
        }
    }

    /// Pretty JSON text with sorted keys.
    var prettyText: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return (try? String(decoding: encoder.encode(self), as: UTF8.self)) ?? "null"
    }
}
