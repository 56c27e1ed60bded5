#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The three canonical forms inside a SigV4 canonical request: URI, query and headers.
enum SigV4Canonicalization {
    /// The canonical URI: the path, normalized when asked, percent-encoded per byte with `/`
    /// kept.
    ///
    /// The raw path is encoded as given, so an already-encoded `%2F` becomes `%252F`. That
    /// is the "double encoding" every service except S3 expects; S3 callers should pass the
    /// decoded path if it holds escapes.
    static func uri(path: String, normalize: Bool) -> String {
        if path == "/" { return path }  // every JSON service's path: nothing to normalize or encode
        let path = normalize ? normalizedPath(path) : path
        return path.isEmpty ? "/" : SigV4Encoding.percentEncode(path.utf8, keepingSlash: true)
    }

    /// Removes `.` and `..` segments and empty segments (repeated slashes), keeping a
    /// trailing slash when the path had one. `..` above the root is dropped, as servers do.
    static func normalizedPath(_ path: String) -> String {
        var segments: [Substring] = []
        for segment in path.split(separator: "/", omittingEmptySubsequences: true) {
            switch segment {
            case ".": continue
            case "..": _ = segments.popLast()
            default: segments.append(segment)
            }
        }
        let joined = "/" + segments.joined(separator: "/")
        return path.hasSuffix("/") && !segments.isEmpty ? joined + "/" : joined
    }

    /// The canonical query: every `name=value` pair decoded, re-encoded strictly, sorted by
    /// name then value (byte order). A name without `=` gets an empty value.
    static func query(_ query: String) -> String {
        let pairs = query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = SigV4Encoding.percentEncode(SigV4Encoding.percentDecode(parts[0]))
            let value = parts.count > 1
                ? SigV4Encoding.percentEncode(SigV4Encoding.percentDecode(parts[1])) : ""
            return (name: name, value: value)
        }
        return pairs
            .sorted { lhs, rhs in
                lhs.name == rhs.name
                    ? lhs.value.utf8.lexicographicallyPrecedes(rhs.value.utf8)
                    : lhs.name.utf8.lexicographicallyPrecedes(rhs.name.utf8)
            }
            .map { "\($0.name)=\($0.value)" }
            .joined(separator: "&")
    }

    /// The canonical header block (each line `name:value\n`) and the signed-headers list.
    ///
    /// Names are lowercased; values are trimmed with inner whitespace runs (folded lines
    /// included) collapsed to one space; repeated names are joined with `,` in order of
    /// appearance; lines are sorted by name.
    static func headers(_ headers: [SigV4Header]) -> (canonical: String, signed: String) {
        if let fast = asciiHeaders(headers) { return fast }
        var valuesByName: [String: [String]] = [:]
        for header in headers {
            let name = collapsingWhitespace(header.name).lowercased()
            valuesByName[name, default: []].append(collapsingWhitespace(header.value))
        }
        let names = valuesByName.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        let canonical = names.map { name in
            "\(name):\(valuesByName[name, default: []].joined(separator: ","))\n"
        }.joined()
        return (canonical, names.joined(separator: ";"))
    }

    /// Trims spaces, tabs and line breaks and collapses inner runs of them to one space.
    /// ``headers(_:)`` for ASCII names, where `String` equality is byte equality, so a
    /// stable sort of the pairs by name groups equal names in their order as the dictionary
    /// does; built in two strings instead of a dictionary of arrays and three joins, which
    /// were a third of a signature. `nil` when a name is not ASCII.
    private static func asciiHeaders(_ headers: [SigV4Header]) -> (canonical: String, signed: String)? {
        var pairs: [(name: String, value: String, position: Int)] = []
        pairs.reserveCapacity(headers.count)
        for (position, header) in headers.enumerated() {
            guard header.name.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
            pairs.append((collapsingWhitespace(header.name).lowercased(), collapsingWhitespace(header.value), position))
        }
        pairs.sort { lhs, rhs in
            lhs.name == rhs.name ? lhs.position < rhs.position : lhs.name.utf8.lexicographicallyPrecedes(rhs.name.utf8)
        }
        var canonical = "", signed = ""
        canonical.reserveCapacity(256)
        for (index, pair) in pairs.enumerated() {
            if index > 0, pairs[index - 1].name == pair.name {
                canonical += ","
            } else {
                if index > 0 {
                    canonical += "\n"
                    signed += ";"
                }
                canonical += pair.name
                canonical += ":"
                signed += pair.name
            }
            canonical += pair.value
        }
        if !pairs.isEmpty { canonical += "\n" }
        return (canonical, signed)
    }

    static func collapsingWhitespace(_ text: String) -> String {
        if isCollapsed(text) { return text }
        var out: [UInt8] = []
        var pendingSpace = false
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: "\n"):
                pendingSpace = !out.isEmpty
            default:
                if pendingSpace { out.append(UInt8(ascii: " ")) }
                pendingSpace = false
                out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether `text` has no whitespace to trim or collapse (no tab, CR or LF, no space at
    /// either end or next to another): then it is its own canonical form, without a copy.
    private static func isCollapsed(_ text: String) -> Bool {
        var previousWasSpace = true  // a leading space needs trimming
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: " "):
                if previousWasSpace { return false }
                previousWasSpace = true
            case UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: "\n"):
                return false
            default:
                previousWasSpace = false
            }
        }
        return !previousWasSpace || text.isEmpty
    }
}

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
        out.reserveCapacity(max(bytes.underestimatedCount, 32) * 2)  // a digest or a signature: 32 bytes
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

/// A signing time in the two UTC forms SigV4 uses: `20150830T123600Z` for `X-Amz-Date`
/// and `20150830` for the credential scope.
///
/// Computed with integer arithmetic from the Unix epoch instead of a date formatter:
/// formatters live in FoundationInternationalization (large, locale-dependent), and a
/// fixed UTC layout needs none of that.
struct AMZDate: Sendable, Hashable {
    /// `yyyyMMdd'T'HHmmss'Z'`.
    let timestamp: String
    /// `yyyyMMdd`.
    let day: String

    init(_ date: Date) {
        // Floor, not truncate, so instants before 1970 and fractional seconds still land
        // in the right second.
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        let (days, secondOfDay) = Self.floorDivide(seconds, 86_400)
        let (year, month, dayOfMonth) = Self.civilDate(daysSinceEpoch: days)
        let day = Self.pad(year, 4) + Self.pad(month, 2) + Self.pad(dayOfMonth, 2)
        let time = Self.pad(secondOfDay / 3600, 2) + Self.pad(secondOfDay % 3600 / 60, 2)
            + Self.pad(secondOfDay % 60, 2)
        self.day = day
        self.timestamp = day + "T" + time + "Z"
    }

    /// Converts days since 1970-01-01 to a proleptic Gregorian (year, month, day), by
    /// counting in 400-year eras that start on 1 March (so the leap day ends a year).
    private static func civilDate(daysSinceEpoch: Int64) -> (Int64, Int64, Int64) {
        let daysSince0000March1 = daysSinceEpoch + 719_468
        let (era, dayOfEra) = floorDivide(daysSince0000March1, 146_097)
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let marchBasedMonth = (5 * dayOfYear + 2) / 153  // 0 = March … 11 = February
        let dayOfMonth = dayOfYear - (153 * marchBasedMonth + 2) / 5 + 1
        let month = marchBasedMonth < 10 ? marchBasedMonth + 3 : marchBasedMonth - 9
        let year = era * 400 + yearOfEra + (month <= 2 ? 1 : 0)
        return (year, month, dayOfMonth)
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let remainder = value % divisor
        return remainder < 0
            ? (value / divisor - 1, remainder + divisor)
            : (value / divisor, remainder)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
