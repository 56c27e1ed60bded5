#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseCoding
import PayPulseHandlers

extension JSONValue {
    /// Parses `bytes` as `JSONDecoder` would (``JSONValue/decode(_:)``); anything it
    /// refuses is `notJSON`.
    static func parse(_ bytes: [UInt8]) throws(EventDecodingError) -> JSONValue {
        do {
            return try JSONValue.decode(bytes)
        } catch {
            throw .notJSON
        }
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
