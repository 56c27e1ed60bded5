#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging

/// The logger an executable starts with: stderr, level from `LOG_LEVEL`.
///
/// No `LoggingSystem.bootstrap`: loggers are passed down explicitly, and bootstrap can
/// only run once per process, which tests cannot live with.
public enum LogSetup {
    /// The environment variable naming the level.
    public static let levelVariable = "LOG_LEVEL"
    /// The level when `LOG_LEVEL` is unset, empty or not a level.
    public static let defaultLevel: Logger.Level = .info

    /// The level `text` names: `trace`, `debug`, `info`, `notice`, `warning`, `error` or
    /// `critical`, in any case, surrounding blanks ignored.
    ///
    /// - Parameter text: The value of `LOG_LEVEL`.
    /// - Returns: The level, or `nil` if `text` names none.
    public static func level(named text: String) -> Logger.Level? {
        Logger.Level(rawValue: trimmed(text).lowercased())
    }

    /// A logger writing `format` lines to standard error at the `LOG_LEVEL` level.
    ///
    /// A `LOG_LEVEL` that names no level does not stop the executable (logging must not be
    /// why a request fails); the logger runs at ``defaultLevel`` and its first line is a
    /// warning naming the variable.
    ///
    /// - Parameters:
    ///   - label: The label on every line, e.g. the executable name.
    ///   - environment: Where `LOG_LEVEL` is read; the process environment by default.
    ///   - format: The line format.
    /// - Returns: The logger.
    public static func makeLogger(
        label: String, environment: [String: String] = ProcessInfo.processInfo.environment, format: LogFormat = .text
    ) -> Logger {
        makeLogger(label: label, environment: environment, format: format, fileDescriptor: 2)
    }

    static func makeLogger(label: String, environment: [String: String], format: LogFormat, fileDescriptor: Int32) -> Logger {
        let raw = environment[levelVariable] ?? ""
        let level = level(named: raw)
        let handler = StderrLogHandler(
            label: label, level: level ?? defaultLevel, format: format, metadataProvider: nil, fileDescriptor: fileDescriptor
        )
        let logger = Logger(label: label) { _ in handler }
        if level == nil, !trimmed(raw).isEmpty {
            logger.warning(
                "\(levelVariable) is not a log level; using \(defaultLevel.rawValue)",
                metadata: ["value": "\(raw)", "allowed": "\(Logger.Level.allCases.map(\.rawValue).joined(separator: ","))"]
            )
        }
        return logger
    }

    private static func trimmed(_ text: String) -> String {
        String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
