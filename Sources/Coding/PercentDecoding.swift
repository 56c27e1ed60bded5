/// `%XX` decoding, shared by form bodies (strict, `+` is a space) and query strings
/// (lenient, `+` kept, as API Gateway passes it).
package enum PercentDecoding {
    /// Decodes `bytes`.
    /// - Parameters:
    ///   - plusAsSpace: read `+` as a space (form encoding).
    ///   - strict: refuse a malformed escape (`nil`) instead of keeping it literally.
    /// - Returns: the decoded bytes, or `nil` for a malformed escape when `strict`.
    package static func decode(_ bytes: some Collection<UInt8>, plusAsSpace: Bool, strict: Bool) -> [UInt8]? {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var input = Array(bytes)[...]
        while let byte = input.popFirst() {
            if byte == UInt8(ascii: "%") {
                if input.count >= 2, let high = HexDigit.value(input[input.startIndex]), let low = HexDigit.value(input[input.startIndex + 1]) {
                    output.append(high << 4 | low)
                    input = input.dropFirst(2)
                    continue
                }
                if strict { return nil }
                output.append(byte)
            } else if byte == UInt8(ascii: "+"), plusAsSpace {
                output.append(UInt8(ascii: " "))
            } else {
                output.append(byte)
            }
        }
        return output
    }
}

/// One hexadecimal digit, either case: `\uXXXX` escapes in JSON and `%XX` in percent-encoding.
enum HexDigit {
    /// The digit's value, or `nil` for a byte that is not `0-9`, `a-f` or `A-F`.
    static func value(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
