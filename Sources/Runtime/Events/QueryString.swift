/// Query parameters with the last value winning for repeated keys, as ``APIRequest``
/// promises.
enum QueryString {
    /// Payload 2.0: `queryStringParameters` joins repeated keys with commas
    /// (`a=1&a=2` gives `"1,2"`), which cannot be told apart from a value with a comma.
    /// `rawQueryString` keeps them apart, so a key repeated there takes its last raw
    /// value (percent-decoded; `+` is left as is, as API Gateway does); other keys keep
    /// the value API Gateway decoded.
    static func lastValues(parameters: [String: String], raw: String?) -> [String: String] {
        var result = parameters
        guard let raw, !raw.isEmpty else { return result }
        var counts: [String: Int] = [:]
        var last: [String: String] = [:]
        for pair in raw.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = percentDecoded(parts[0])
            counts[key, default: 0] += 1
            last[key] = parts.count > 1 ? percentDecoded(parts[1]) : ""
        }
        for (key, value) in last where counts[key, default: 0] > 1 || result[key] == nil {
            result[key] = value
        }
        return result
    }

    /// `%XX` sequences decoded; a malformed escape is kept literally.
    static func percentDecoded(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var input = Array(text.utf8)[...]
        while let byte = input.popFirst() {
            if byte == UInt8(ascii: "%"), input.count >= 2,
                let high = hexValue(input[input.startIndex]), let low = hexValue(input[input.startIndex + 1])
            {
                bytes.append(high << 4 | low)
                input = input.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
