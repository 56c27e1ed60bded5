#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseCoding

/// The `body` and `isBase64Encoded` members of an API Gateway event.
enum EventBody {
    /// The body bytes: base64-decoded when the event says so (SAM and binary media types
    /// do), UTF-8 otherwise; empty for a missing or `null` body.
    ///
    /// The size is checked on the text before anything is decoded or copied: base64 text
    /// of length L decodes to at least 3L/4 - 2 bytes, so a body over
    /// ``APIRequest/maximumBodyBytes`` is refused without decoding it.
    ///
    /// - Throws: ``EventDecodingError/bodyTooLarge(_:)`` or
    ///   ``EventDecodingError/invalidBase64(_:)``, carrying `version`.
    static func bytes(of event: [String: JSONValue], version: PayloadVersion) throws(EventDecodingError) -> [UInt8] {
        guard let text = event["body"]?.stringValue else { return [] }
        let isBase64 = event["isBase64Encoded"]?.boolValue == true
        let length = text.utf8.count
        let smallestDecodedLength = isBase64 ? length / 4 * 3 - 2 : length
        guard smallestDecodedLength <= APIRequest.maximumBodyBytes else { throw .bodyTooLarge(version) }
        guard isBase64 else { return Array(text.utf8) }
        guard let bytes = StrictBase64.decode(text) else { throw .invalidBase64(version) }
        // Padding can only shorten it; this keeps the bound exact, not approximate.
        guard bytes.count <= APIRequest.maximumBodyBytes else { throw .bodyTooLarge(version) }
        return bytes
    }
}

/// RFC 4648 base64 (standard alphabet, padded), decoded strictly.
///
/// Foundation's `Data(base64Encoded:)` accepts `=` inside the text and extra padding
/// (`e3=0` decodes to two bytes of garbage), which would hand a handler bytes the client
/// never sent. API Gateway always sends padded standard base64, so anything else is
/// refused: a length that is not a multiple of 4, a character outside the alphabet, or
/// padding anywhere but the last one or two places.
enum StrictBase64 {
    /// The decoded bytes, or `nil` if `text` is not strict base64.
    static func decode(_ text: String) -> [UInt8]? {
        let input = Array(text.utf8)
        guard input.count % 4 == 0 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(input.count / 4 * 3)
        var index = 0
        while index < input.count {
            let isLast = index + 4 == input.count
            let padding = isLast ? input[index...].reversed().prefix { $0 == UInt8(ascii: "=") }.count : 0
            guard padding <= 2 else { return nil }
            var group: UInt32 = 0
            for offset in 0..<(4 - padding) {
                guard let value = sextet(input[index + offset]) else { return nil }
                group = group << 6 | UInt32(value)
            }
            group <<= 6 * UInt32(padding)
            output.append(UInt8(truncatingIfNeeded: group >> 16))
            if padding < 2 { output.append(UInt8(truncatingIfNeeded: group >> 8)) }
            if padding < 1 { output.append(UInt8(truncatingIfNeeded: group)) }
            index += 4
        }
        return output
    }

    private static func sextet(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}

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
