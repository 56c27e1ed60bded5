import Logging

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
