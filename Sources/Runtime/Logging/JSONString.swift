/// JSON string literals without Foundation's encoder: log lines and error bodies are
/// written on every invocation, and this is all they need.
enum JSONString {
    /// `text` as a quoted JSON string (RFC 8259 escapes; non-ASCII kept as UTF-8).
    static func quoted(_ text: String) -> String {
        // Most text needs no escape: one pass over the bytes (0xE2 leads U+2028 and U+2029).
        if !text.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x7F || $0 == 0xE2 }) {
            return "\"" + text + "\""
        }
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || scalar.value == 0x2028 || scalar.value == 0x2029:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
