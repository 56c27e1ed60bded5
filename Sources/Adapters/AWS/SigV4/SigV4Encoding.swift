/// The byte-level encodings SigV4 uses: strict percent-encoding and lowercase hex.
///
/// SigV4 percent-encoding is stricter than what URL libraries produce: only the RFC 3986
/// unreserved characters stay as they are, everything else (including `+`, `*`, `=`, and
/// every non-ASCII UTF-8 byte) becomes `%XX` with uppercase hex digits.
enum SigV4Encoding {
    /// Percent-encodes `bytes`, keeping unreserved characters (and `/` when asked).
    static func percentEncode(_ bytes: some Sequence<UInt8>, keepingSlash: Bool = false) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount)
        for byte in bytes {
            if isUnreserved(byte) || (keepingSlash && byte == UInt8(ascii: "/")) {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(upperHexDigits[Int(byte >> 4)])
                out.append(upperHexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes `%XX` escapes to bytes. A `%` not followed by two hex digits is kept as a
    /// literal `%` (it then re-encodes as `%25`) rather than failing the whole request.
    /// `+` is left alone: SigV4 treats query strings per RFC 3986, not as form data.
    static func percentDecode(_ text: Substring) -> [UInt8] {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
               let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) {
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return out
    }

    /// Lowercase hex, as SigV4 uses for hashes and signatures.
    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        var out: [UInt8] = []
        for byte in bytes {
            out.append(lowerHexDigits[Int(byte >> 4)])
            out.append(lowerHexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static let upperHexDigits = Array("0123456789ABCDEF".utf8)
    private static let lowerHexDigits = Array("0123456789abcdef".utf8)

    /// RFC 3986 unreserved: `A-Z a-z 0-9 - . _ ~`.
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
