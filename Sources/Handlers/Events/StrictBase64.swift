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
