#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Logging
import PayPulsePorts

/// The logger an executable starts with: standard error, level and format as
/// ``LogSettings`` say. Every line logged while a Lambda invocation runs carries its
/// `requestId`, whichever logger wrote it (adapters keep the process logger they were
/// built with), through ``RequestScope``.
///
/// No `LoggingSystem.bootstrap`: loggers are passed down explicitly, and bootstrap can
/// only run once per process, which tests cannot live with.
package enum LogSetup {
    /// A logger writing to standard error. When the settings carry a rejected level
    /// variable, the first line is a warning naming it.
    ///
    /// - Parameters:
    ///   - label: The label on every text line, e.g. the executable name.
    ///   - settings: Level and format.
    /// - Returns: The logger.
    package static func makeLogger(label: String, settings: LogSettings) -> Logger {
        makeLogger(label: label, settings: settings, fileDescriptor: 2)
    }

    static func makeLogger(label: String, settings: LogSettings, fileDescriptor: Int32) -> Logger {
        let handler = StderrLogHandler(
            label: label, level: settings.level, format: settings.format, metadataProvider: RequestScope.metadata,
            fileDescriptor: fileDescriptor
        )
        let logger = Logger(label: label) { _ in handler }
        if let rejected = settings.rejected {
            logger.warning(
                "\(rejected.variable) is not a log level; using \(settings.level.rawValue)",
                metadata: ["value": "\(rejected.value)", "allowed": "\(rejected.allowed)"]
            )
        }
        return logger
    }
}

/// How a process logs: the least severe level written and the line format. The
/// configuration module reads them from the environment.
package struct LogSettings: Sendable, Equatable {
    /// A level variable that named no level: logged as the logger's first line.
    package struct RejectedLevel: Sendable, Equatable {
        /// The variable, e.g. `LOG_LEVEL`.
        package let variable: String
        /// What it held.
        package let value: String
        /// The names it accepts, comma-separated.
        package let allowed: String

        /// Creates a record of a rejected level.
        package init(variable: String, value: String, allowed: String) {
            self.variable = variable
            self.value = value
            self.allowed = allowed
        }
    }

    /// The level when no variable names one.
    package static let defaultLevel: Logger.Level = .info

    /// The least severe level written.
    package let level: Logger.Level
    /// The line format.
    package let format: LogFormat
    /// The level variable that was not understood, if any.
    package let rejected: RejectedLevel?

    /// Creates settings.
    package init(level: Logger.Level = LogSettings.defaultLevel, format: LogFormat = .text, rejected: RejectedLevel? = nil) {
        self.level = level
        self.format = format
        self.rejected = rejected
    }

    /// The level `text` names: `trace`, `debug`, `info`, `notice`, `warning`, `error` or
    /// `critical`, in any case, surrounding blanks ignored.
    ///
    /// - Parameter text: The value of `LOG_LEVEL`.
    /// - Returns: The level, or `nil` if `text` names none.
    package static func level(named text: String) -> Logger.Level? {
        Logger.Level(rawValue: String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed()).lowercased())
    }
}

/// Lambda's log level names (`TRACE`, `DEBUG`, `INFO`, `WARN`, `ERROR`, `FATAL`) and
/// swift-log's seven levels, both ways.
package enum LambdaLogLevel {
    /// The level Lambda's name `text` means, in any case: `WARN` is `warning`, `FATAL`
    /// is `critical`; swift-log's own names are accepted too.
    ///
    /// - Parameter text: A level name, blanks already trimmed.
    /// - Returns: The level, or `nil` if `text` names none.
    package static func level(named text: String) -> Logger.Level? {
        switch text.uppercased() {
        case "WARN": .warning
        case "FATAL": .critical
        default: Logger.Level(rawValue: text.lowercased())
        }
    }

    /// The name Lambda filters JSON lines by: `notice` is `INFO` (Lambda has no
    /// notice), `critical` is `FATAL`.
    ///
    /// - Parameter level: A swift-log level.
    /// - Returns: One of Lambda's six names.
    package static func name(of level: Logger.Level) -> String {
        switch level {
        case .trace: "TRACE"
        case .debug: "DEBUG"
        case .info, .notice: "INFO"
        case .warning: "WARN"
        case .error: "ERROR"
        case .critical: "FATAL"
        }
    }
}

/// How a log line looks: readable text locally, JSON lines in Lambda.
package enum LogFormat: String, Sendable, Equatable, CaseIterable {
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
    package func render(
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
