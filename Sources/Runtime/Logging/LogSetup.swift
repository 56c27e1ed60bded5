import Logging

/// The logger an executable starts with: standard error, level and format as
/// ``LogSettings`` say. Every line logged while a Lambda invocation runs carries its
/// `requestId`, whichever logger wrote it (adapters keep the process logger they were
/// built with), through ``RequestScope``.
///
/// No `LoggingSystem.bootstrap`: loggers are passed down explicitly, and bootstrap can
/// only run once per process, which tests cannot live with.
public enum LogSetup {
    /// A logger writing to standard error. When the settings carry a rejected level
    /// variable, the first line is a warning naming it.
    ///
    /// - Parameters:
    ///   - label: The label on every text line, e.g. the executable name.
    ///   - settings: Level and format.
    /// - Returns: The logger.
    public static func makeLogger(label: String, settings: LogSettings) -> Logger {
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
