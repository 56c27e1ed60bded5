#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Unpadded base64url (RFC 4648 §5), as JWS compact serialisation uses it.
enum Base64URL {
    /// Whether a byte is in the base64url alphabet (no padding).
    static func isAlphabet(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default:
            false
        }
    }

    /// Decodes an unpadded base64url string; nil if it is not one.
    static func decode(_ text: some StringProtocol) -> Data? {
        guard text.utf8.allSatisfy(isAlphabet), text.utf8.count % 4 != 1 else { return nil }
        var standard: [UInt8] = text.utf8.map {
            switch $0 {
            case UInt8(ascii: "-"): UInt8(ascii: "+")
            case UInt8(ascii: "_"): UInt8(ascii: "/")
            default: $0
            }
        }
        standard += Array(repeating: UInt8(ascii: "="), count: (4 - standard.count % 4) % 4)
        return Data(base64Encoded: Data(standard))
    }

    /// Encodes bytes as unpadded base64url.
    static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var text = Data(bytes).base64EncodedString()
        while text.last == "=" { text.removeLast() }
        return String(String.UnicodeScalarView(text.unicodeScalars.map {
            switch $0 {
            case "+": "-"
            case "/": "_"
            default: $0
            }
        }))
    }
}
