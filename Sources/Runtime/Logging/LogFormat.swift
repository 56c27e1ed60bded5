import Logging

/// How a log line looks: readable text locally, JSON lines in Lambda.
public enum LogFormat: String, Sendable, Equatable, CaseIterable {
    /// `2026-11-22T07:27:00.123Z info store-tokens: handled request method=POST status=200`:
    /// metadata sorted by key; values with spaces, quotes, `=` or control characters are
    /// quoted with backslash escapes, and newlines in the message are escaped, so one
    /// event is always one line.
    case text
    /// One JSON object per line, as Lambda's JSON log format expects:
    /// `{"timestamp":"2026-11-22T07:27:00.123Z","level":"INFO","message":"handled request","requestId":"...","status":"200"}`.
    /// See ``JSONLogLine``.
    case json

    /// Renders one log event as a line, without the trailing newline.
    ///
    /// - Parameters:
    ///   - timestamp: When it happened.
    ///   - level: Its level.
    ///   - label: The logger's label, e.g. the executable name.
    ///   - message: The message.
    ///   - metadata: All metadata, already merged.
    /// - Returns: The line.
    public func render(
        timestamp: LogTimestamp, level: Logger.Level, label: String, message: String, metadata: Logger.Metadata
    ) -> String {
        switch self {
        case .text:
            var line = "\(timestamp.rfc3339) \(level.rawValue) \(label): \(Self.escapingControls(message))"
            for key in metadata.keys.sorted() {
                line += " \(key)=\(Self.quotedIfNeeded("\(metadata[key]!)"))"
            }
            return line
        case .json:
            return JSONLogLine.render(timestamp: timestamp, level: level, message: message, metadata: metadata)
        }
    }

    private static func quotedIfNeeded(_ value: String) -> String {
        // On the UTF-8 bytes (bytes of multi-byte scalars are all >= 0x80, so pass, as
        // those scalars do): walking scalars was most of a line's cost.
        let plain = !value.isEmpty && value.utf8.allSatisfy { byte in
            byte > 0x20 && byte != 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "=") && byte != UInt8(ascii: "\\")
        }
        if plain { return value }
        let escaped = escapingControls(value.replacingBackslashesAndQuotes())
        return "\"\(escaped)\""
    }

    /// Newlines, tabs and other control characters as escapes.
    private static func escapingControls(_ text: String) -> String {
        // Most text has nothing to escape: one pass over the bytes, no copy.
        if !text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                result += "\\u{\(String(scalar.value, radix: 16))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}

extension String {
    fileprivate func replacingBackslashesAndQuotes() -> String {
        var result = ""
        for character in self {
            switch character {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            default: result.append(character)
            }
        }
        return result
    }
}
