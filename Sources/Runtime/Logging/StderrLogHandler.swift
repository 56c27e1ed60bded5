#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Logging
import PayPulsePorts

/// A swift-log handler that writes one line per event to standard error (descriptor 2,
/// or another descriptor in tests) with a single `write`, so concurrent lines do not
/// interleave.
package struct StderrLogHandler: LogHandler {
    /// The logger's label, shown on every line.
    package let label: String
    /// The line format.
    package let format: LogFormat
    /// The least severe level written.
    package var logLevel: Logger.Level
    /// Metadata added to every line.
    package var metadata: Logger.Metadata = [:]
    /// Contextual metadata (e.g. task-local request ids), if any.
    package var metadataProvider: Logger.MetadataProvider?
    private let fileDescriptor: Int32

    /// Creates a handler writing to standard error.
    ///
    /// - Parameters:
    ///   - label: The logger's label.
    ///   - level: The least severe level written.
    ///   - format: The line format.
    ///   - metadataProvider: Contextual metadata, if any.
    package init(label: String, level: Logger.Level, format: LogFormat = .text, metadataProvider: Logger.MetadataProvider? = nil) {
        self.init(label: label, level: level, format: format, metadataProvider: metadataProvider, fileDescriptor: 2)
    }

    /// Creates a handler writing to `fileDescriptor` (tests pass a pipe).
    init(label: String, level: Logger.Level, format: LogFormat, metadataProvider: Logger.MetadataProvider?, fileDescriptor: Int32) {
        self.label = label
        self.format = format
        self.logLevel = level
        self.metadataProvider = metadataProvider
        self.fileDescriptor = fileDescriptor
    }

    /// Metadata by key.
    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes `event` as one line. Precedence: handler metadata, then the provider's,
    /// then the call's; an attached error is shown as `error=`.
    package func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let explicit = event.metadata { merged.merge(explicit) { _, new in new } }
        if let error = event.error { merged["error"] = "\(error)" }
        let line = format.render(
            timestamp: .now(), level: event.level, label: label, message: event.message.description, metadata: merged
        )
        FileDescriptorIO.writeAll(fileDescriptor, Array((line + "\n").utf8))
    }
}

/// One log event as a JSON object on one line, in Lambda's JSON log shape.
///
/// `timestamp` (RFC 3339, ms), `level` (Lambda's names, see ``LambdaLogLevel``),
/// `message`, `requestId` when the metadata has one, then the other metadata sorted by
/// key. A metadata key that would repeat one of these fields is written as
/// `metadata.<key>`, so every line stays a valid object with unique keys.
enum JSONLogLine {
    static let reservedKeys: Set<String> = ["timestamp", "level", "message"]

    static func render(timestamp: LogTimestamp, level: Logger.Level, message: String, metadata: Logger.Metadata) -> String {
        var fields = [
            "\"timestamp\":\(JSONString.quoted(timestamp.rfc3339))",
            "\"level\":\(JSONString.quoted(LambdaLogLevel.name(of: level)))",
            "\"message\":\(JSONString.quoted(message))",
        ]
        if let requestID = metadata["requestId"] {
            fields.append("\"requestId\":\(value(requestID))")
        }
        for key in metadata.keys.sorted() where key != "requestId" {
            let name = reservedKeys.contains(key) ? "metadata.\(key)" : key
            fields.append("\(JSONString.quoted(name)):\(value(metadata[key]!))")
        }
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// Strings (and string-convertible values) as strings; arrays and dictionaries as
    /// JSON arrays and objects.
    private static func value(_ value: Logger.MetadataValue) -> String {
        switch value {
        case .string(let text): JSONString.quoted(text)
        case .stringConvertible(let convertible): JSONString.quoted(convertible.description)
        case .array(let items): "[" + items.map { Self.value($0) }.joined(separator: ",") + "]"
        case .dictionary(let entries):
            "{" + entries.keys.sorted().map { "\(JSONString.quoted($0)):\(Self.value(entries[$0]!))" }.joined(separator: ",") + "}"
        }
    }
}

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

/// A wall-clock instant in milliseconds, rendered as RFC 3339 UTC
/// (`2026-11-22T07:27:00.123Z`) without Foundation's date formatting.
package struct LogTimestamp: Sendable, Equatable {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    package var millisecondsSinceEpoch: Int64

    /// Creates a timestamp.
    ///
    /// - Parameter millisecondsSinceEpoch: Milliseconds since the Unix epoch.
    package init(millisecondsSinceEpoch: Int64) {
        self.millisecondsSinceEpoch = millisecondsSinceEpoch
    }

    /// The current time from `CLOCK_REALTIME`.
    package static func now() -> LogTimestamp {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return LogTimestamp(millisecondsSinceEpoch: Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000)
    }

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ`.
    package var rfc3339: String {
        let (seconds, millis) = floorDivision(millisecondsSinceEpoch, 1000)
        let (days, secondOfDay) = floorDivision(seconds, 86_400)
        let (year, month, day) = Self.civilDate(daysSinceEpoch: days)
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3600, 2)):"
            + "\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2)).\(pad(millis, 3))Z"
    }

    /// Howard Hinnant's `civil_from_days`: proleptic Gregorian date of a day count.
    static func civilDate(daysSinceEpoch: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = daysSinceEpoch + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private func floorDivision(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let (quotient, remainder) = value.quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }

    private func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}

/// The request id of the Lambda invocation running on this task, set by ``LambdaLoop``
/// and read only by the log handler's metadata provider: the one place it is attached, so
/// that lines from adapters built once per process carry it too.
enum RequestScope {
    @TaskLocal static var requestID: String?

    /// Adds `requestId` to every line logged inside an invocation.
    static let metadata = Logger.MetadataProvider {
        guard let requestID else { return [:] }
        return ["requestId": .string(requestID)]
    }
}

/// Writes each EMF document as one raw line on standard error, which Lambda ships to
/// CloudWatch Logs, where the metrics are extracted.
package struct StandardErrorMetricsSink: MetricsSink {
    /// Creates the sink.
    package init() {}

    package func emit(_ line: String) {
        let text = line + "\n"
        _ = text.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
    }
}
