import Logging

/// Lambda's log level names (`TRACE`, `DEBUG`, `INFO`, `WARN`, `ERROR`, `FATAL`) and
/// swift-log's seven levels, both ways.
public enum LambdaLogLevel {
    /// The level Lambda's name `text` means, in any case: `WARN` is `warning`, `FATAL`
    /// is `critical`; swift-log's own names are accepted too.
    ///
    /// - Parameter text: A level name, blanks already trimmed.
    /// - Returns: The level, or `nil` if `text` names none.
    public static func level(named text: String) -> Logger.Level? {
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
    public static func name(of level: Logger.Level) -> String {
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
