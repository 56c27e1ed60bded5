#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// RFC 3339 timestamps in UTC with whole seconds, e.g. `2024-11-01T10:00:00Z`: the one
/// format the token set, tags and responses use.
package enum RFC3339 {
    private static let style = Date.ISO8601FormatStyle(timeZone: .gmt)

    /// Formats a date, dropping fractions of a second.
    package static func string(from date: Date) -> String {
        Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down)).formatted(style)
    }

    /// Parses `2024-11-01T10:00:00Z`, with or without fractional seconds or an offset.
    package static func date(from string: String) -> Date? {
        if let date = try? Date(string, strategy: style) { return date }
        if let date = try? Date(string, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)) { return date }
        return nil
    }
}
