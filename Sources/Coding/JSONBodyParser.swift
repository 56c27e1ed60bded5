/// A strict RFC 8259 parser for request bodies, where `JSONDecoder` is too lenient:
///
/// - A repeated key is refused. `JSONDecoder` keeps the first value, most other parsers
///   (JavaScript, Python) the last: a body that meant one token to a proxy or a log
///   reader and another to us is refused rather than guessed at.
/// - Nesting is bounded by ``maximumDepth``; a token body is two levels deep.
/// - A number that does not fit a `Double` (`1e400`) is refused; whole numbers that fit
///   an `Int64` stay exact, larger ones (`2^63`) become `number` and fail range checks.
/// - Strings must be UTF-8 without raw control characters or lone surrogate escapes.
///
/// Errors carry no input text: a body may hold tokens.
package struct JSONBodyParser {
    /// The deepest nesting accepted.
    package static let maximumDepth = 32

    /// Why a body is not accepted JSON.
    package enum Failure: Error, Equatable, Sendable {
        case syntax
        case tooDeep
        case duplicateKey
        case numberOutOfRange
    }

    private let bytes: [UInt8]
    private var index = 0

    /// Parses one JSON document (surrounded by optional whitespace).
    /// - Throws: ``Failure``.
    package static func parse(_ bytes: [UInt8]) throws(Failure) -> JSONValue {
        var parser = JSONBodyParser(bytes: bytes)
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw .syntax }
        return value
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
    }

    private mutating func expect(_ byte: UInt8) throws(Failure) {
        guard current == byte else { throw .syntax }
        index += 1
    }

    private mutating func value(depth: Int) throws(Failure) -> JSONValue {
        skipWhitespace()
        guard let byte = current else { throw .syntax }
        switch byte {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw .syntax
        }
    }

    private mutating func literal(_ word: String) throws(Failure) {
        let expected = Array(word.utf8)
        guard bytes.count - index >= expected.count, bytes[index..<index + expected.count].elementsEqual(expected) else {
            throw .syntax
        }
        index += expected.count
    }

    private mutating func object(depth: Int) throws(Failure) -> JSONValue {
        guard depth <= Self.maximumDepth else { throw .tooDeep }
        index += 1
        var fields: [String: JSONValue] = [:]
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            return .object(fields)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw .syntax }
            let key = try string()
            skipWhitespace()
            try expect(UInt8(ascii: ":"))
            let member = try value(depth: depth)
            guard fields.updateValue(member, forKey: key) == nil else { throw .duplicateKey }
            skipWhitespace()
            if current == UInt8(ascii: ",") {
                index += 1
                continue
            }
            try expect(UInt8(ascii: "}"))
            return .object(fields)
        }
    }

    private mutating func array(depth: Int) throws(Failure) -> JSONValue {
        guard depth <= Self.maximumDepth else { throw .tooDeep }
        index += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            return .array(items)
        }
        while true {
            items.append(try value(depth: depth))
            skipWhitespace()
            if current == UInt8(ascii: ",") {
                index += 1
                continue
            }
            try expect(UInt8(ascii: "]"))
            return .array(items)
        }
    }

    private mutating func string() throws(Failure) -> String {
        index += 1
        // Most strings hold no escape: validate their bytes in one go.
        let start = index
        var ascii = true
        while index < bytes.count, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\"), bytes[index] >= 0x20 {
            if bytes[index] >= 0x80 { ascii = false }
            index += 1
        }
        if current == UInt8(ascii: "\"") {
            index += 1
            guard let text = Self.text(of: bytes, start..<index - 1, ascii: ascii) else { throw .syntax }
            return text
        }
        // Escapes: copy the runs between them whole (stored token sets are full of them).
        var utf8: [UInt8] = []
        var runStart = start
        while let byte = current {
            switch byte {
            case UInt8(ascii: "\""):
                utf8.append(contentsOf: bytes[runStart..<index])
                index += 1
                guard let text = Self.text(of: utf8, utf8.indices, ascii: false) else { throw .syntax }
                return text
            case UInt8(ascii: "\\"):
                utf8.append(contentsOf: bytes[runStart..<index])
                index += 1
                try escape(into: &utf8)
                runStart = index
            case 0..<0x20:
                throw .syntax
            default:
                index += 1
            }
        }
        throw .syntax
    }

    /// `bytes[range]` as a string, `nil` when it is not UTF-8. Through a buffer pointer:
    /// `String(validating:)` over an `ArraySlice` took the unspecialised generic path, about
    /// a thousand instructions a string (a sixteenth of a warm store-tokens); ASCII needs no
    /// validation at all.
    private static func text(of bytes: [UInt8], _ range: Range<Int>, ascii: Bool) -> String? {
        bytes.withUnsafeBufferPointer { buffer in
            let slice = UnsafeBufferPointer(rebasing: buffer[range])
            return ascii ? String(decoding: slice, as: UTF8.self) : String(validating: slice, as: UTF8.self)
        }
    }

    private mutating func escape(into utf8: inout [UInt8]) throws(Failure) {
        guard let byte = current else { throw .syntax }
        index += 1
        let simple: UInt8? = switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): byte
        case UInt8(ascii: "b"): 0x08
        case UInt8(ascii: "f"): 0x0C
        case UInt8(ascii: "n"): 0x0A
        case UInt8(ascii: "r"): 0x0D
        case UInt8(ascii: "t"): 0x09
        default: nil
        }
        if let simple {
            utf8.append(simple)
            return
        }
        guard byte == UInt8(ascii: "u") else { throw .syntax }
        var scalar = try hexQuad()
        if (0xD800...0xDBFF).contains(scalar) {
            // A high surrogate must be followed by an escaped low one.
            try expect(UInt8(ascii: "\\"))
            try expect(UInt8(ascii: "u"))
            let low = try hexQuad()
            guard (0xDC00...0xDFFF).contains(low) else { throw .syntax }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        }
        guard let unicode = Unicode.Scalar(scalar) else { throw .syntax }
        utf8.append(contentsOf: Array(String(Character(unicode)).utf8))
    }

    private mutating func hexQuad() throws(Failure) -> UInt32 {
        var result: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = current, let digit = HexDigit.value(byte) else { throw .syntax }
            result = result << 4 | UInt32(digit)
            index += 1
        }
        return result
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    private mutating func number() throws(Failure) -> JSONValue {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        if current == UInt8(ascii: "0") {
            index += 1
        } else {
            guard digits() > 0 else { throw .syntax }
        }
        var isWhole = true
        if current == UInt8(ascii: ".") {
            index += 1
            isWhole = false
            guard digits() > 0 else { throw .syntax }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            isWhole = false
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw .syntax }
        }
        let text = Self.text(of: bytes, start..<index, ascii: true) ?? ""  // digits, signs and dots: ASCII
        if isWhole, let whole = Int64(text) { return .integer(whole) }
        guard let number = Double(text), number.isFinite else { throw .numberOutOfRange }
        return .number(number)
    }

    private mutating func digits() -> Int {
        let start = index
        while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { index += 1 }
        return index - start
    }
}
