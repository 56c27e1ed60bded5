/// The three canonical forms inside a SigV4 canonical request: URI, query and headers.
enum SigV4Canonicalization {
    /// The canonical URI: the path, normalized when asked, percent-encoded per byte with `/`
    /// kept.
    ///
    /// The raw path is encoded as given, so an already-encoded `%2F` becomes `%252F`. That
    /// is the "double encoding" every service except S3 expects; S3 callers should pass the
    /// decoded path if it holds escapes.
    static func uri(path: String, normalize: Bool) -> String {
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
