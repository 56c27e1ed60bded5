#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension JSONValue {
    /// The document exactly as `JSONDecoder` decodes it into a `JSONValue`, read by
    /// ``fastParse(_:)`` (a tenth of the instructions) wherever that answers.
    ///
    /// - Parameter bytes: One JSON document.
    /// - Returns: The value.
    /// - Throws: `JSONDecoder`'s error for bytes that are not JSON.
    public static func decode(_ bytes: [UInt8]) throws -> JSONValue {
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
    public static func fastParse(_ bytes: [UInt8]) -> JSONValue? {
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
