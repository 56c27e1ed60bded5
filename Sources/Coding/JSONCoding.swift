#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The one JSON output style of the project: compact, keys sorted, slashes unescaped, so
/// equal values give equal bytes (stored token sets, responses, events, signed claims).
package enum JSONCoding {
    /// An encoder in the project's style; `pretty` adds indentation for people (the CLI).
    package static func encoder(pretty: Bool = false) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// `value` as JSON bytes in the project's style.
    /// - Throws: `EncodingError` for a value JSON cannot hold (a non-finite `Double`).
    package static func encode(_ value: some Encodable) throws -> [UInt8] {
        Array(try encoder().encode(value))
    }

    /// `value` as JSON text in the project's style.
    /// - Throws: `EncodingError` for a value JSON cannot hold (a non-finite `Double`).
    package static func string(_ value: some Encodable) throws -> String {
        String(decoding: try encoder().encode(value), as: UTF8.self)
    }
}
