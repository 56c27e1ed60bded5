extension JSONValue {
    /// Compact JSON text byte for byte as ``JSONCoding/encode(_:)`` writes this value (keys
    /// sorted by their UTF-8 bytes, slashes unescaped, `\b \t \n \f \r` and other control
    /// characters as `\u00xx`), without `JSONEncoder`'s generic machinery; `nil` when the
    /// value holds a floating-point number or a non-ASCII key, whose exact text only
    /// `JSONEncoder` knows.
    public func compactJSON() -> [UInt8]? {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        return write(into: &output) ? output : nil
    }

    private func write(into output: inout [UInt8]) -> Bool {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: value ? "true".utf8 : "false".utf8)
        case .integer(let value): output.append(contentsOf: String(value).utf8)
        case .number: return false
        case .string(let value): Self.writeString(value, into: &output)
        case .array(let items):
            output.append(UInt8(ascii: "["))
            for (position, item) in items.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                guard item.write(into: &output) else { return false }
            }
            output.append(UInt8(ascii: "]"))
        case .object(let fields):
            guard fields.keys.allSatisfy({ $0.utf8.allSatisfy { $0 < 0x80 } }) else { return false }
            output.append(UInt8(ascii: "{"))
            for (position, key) in fields.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }).enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                Self.writeString(key, into: &output)
                output.append(UInt8(ascii: ":"))
                guard fields[key]!.write(into: &output) else { return false }
            }
            output.append(UInt8(ascii: "}"))
        }
        return true
    }

    /// A JSON string literal with `JSONEncoder`'s escapes.
    static func writeString(_ text: String, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            // Runs without an escape are copied whole.
            var runStart = 0
            for (offset, byte) in bytes.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<offset]))
                writeEscape(byte, into: &output)
                runStart = offset + 1
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
        }
        output.append(UInt8(ascii: "\""))
    }

    private static func writeEscape(_ byte: UInt8, into output: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""): output.append(contentsOf: #"\""#.utf8)
        case UInt8(ascii: "\\"): output.append(contentsOf: #"\\"#.utf8)
        case 0x08: output.append(contentsOf: #"\b"#.utf8)
        case 0x09: output.append(contentsOf: #"\t"#.utf8)
        case 0x0A: output.append(contentsOf: #"\n"#.utf8)
        case 0x0C: output.append(contentsOf: #"\f"#.utf8)
        case 0x0D: output.append(contentsOf: #"\r"#.utf8)
        case 0..<0x20:
            output.append(contentsOf: #"\u00"#.utf8)
            output.append(hexDigits[Int(byte >> 4)])
            output.append(hexDigits[Int(byte & 0x0F)])
        default: output.append(byte)
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
