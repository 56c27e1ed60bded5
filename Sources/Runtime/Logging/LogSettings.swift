import Logging

/// How a process logs: the least severe level written and the line format. The
/// configuration module reads them from the environment.
public struct LogSettings: Sendable, Equatable {
    /// A level variable that named no level: logged as the logger's first line.
    public struct RejectedLevel: Sendable, Equatable {
        /// The variable, e.g. `LOG_LEVEL`.
        public let variable: String
        /// What it held.
        public let value: String
        /// The names it accepts, comma-separated.
        public let allowed: String

        /// Creates a record of a rejected level.
        public init(variable: String, value: String, allowed: String) {
            self.variable = variable
            self.value = value
            self.allowed = allowed
        }
    }

    /// The level when no variable names one.
    public static let defaultLevel: Logger.Level = .info

    /// The least severe level written.
    public let level: Logger.Level
    /// The line format.
    public let format: LogFormat
    /// The level variable that was not understood, if any.
    public let rejected: RejectedLevel?

    /// Creates settings.
    public init(level: Logger.Level = LogSettings.defaultLevel, format: LogFormat = .text, rejected: RejectedLevel? = nil) {
        self.level = level
        self.format = format
        self.rejected = rejected
    }

    /// The level `text` names: `trace`, `debug`, `info`, `notice`, `warning`, `error` or
    /// `critical`, in any case, surrounding blanks ignored.
    ///
    /// - Parameter text: The value of `LOG_LEVEL`.
    /// - Returns: The level, or `nil` if `text` names none.
    public static func level(named text: String) -> Logger.Level? {
        Logger.Level(rawValue: String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed()).lowercased())
    }
}
