import Logging
import PayPulseRuntime

extension LogSettings {
    /// Reads the level and format.
    ///
    /// - Level: `AWS_LAMBDA_LOG_LEVEL` (Lambda's names, see `LambdaLogLevel`), else
    ///   `LOG_LEVEL` (swift-log's names), else `defaultLevel`. A value naming no level does
    ///   not stop the process (logging must not be why a request fails): the default is used
    ///   and the logger's first line says so.
    /// - Format: JSON lines when `AWS_LAMBDA_LOG_FORMAT=JSON`, or inside Lambda
    ///   (`AWS_LAMBDA_FUNCTION_NAME` set) unless `AWS_LAMBDA_LOG_FORMAT=Text`; text otherwise.
    static func read(_ reader: EnvironmentReader, defaultLevel: Logger.Level) -> LogSettings {
        let format: LogFormat =
            switch reader.value("AWS_LAMBDA_LOG_FORMAT").map({ trimmed($0).lowercased() }) {
            case "json": .json
            case "text": .text
            default: reader.value("AWS_LAMBDA_FUNCTION_NAME") == nil ? .text : .json
            }
        if let raw = reader.value("AWS_LAMBDA_LOG_LEVEL") {
            guard let level = LambdaLogLevel.level(named: trimmed(raw)) else {
                return LogSettings(level: defaultLevel, format: format, rejected: .init(variable: "AWS_LAMBDA_LOG_LEVEL", value: raw, allowed: "TRACE,DEBUG,INFO,WARN,ERROR,FATAL"))
            }
            return LogSettings(level: level, format: format)
        }
        guard let raw = reader.value("LOG_LEVEL") else { return LogSettings(level: defaultLevel, format: format) }
        guard let level = LogSettings.level(named: raw) else {
            let allowed = Logger.Level.allCases.map(\.rawValue).joined(separator: ",")
            return LogSettings(level: defaultLevel, format: format, rejected: .init(variable: "LOG_LEVEL", value: raw, allowed: allowed))
        }
        return LogSettings(level: level, format: format)
    }

    /// Reads the level and format from `environment` alone.
    public static func fromEnvironment(_ environment: [String: String], defaultLevel: Logger.Level = LogSettings.defaultLevel) -> LogSettings {
        read(EnvironmentReader(variables: environment), defaultLevel: defaultLevel)
    }

    private static func trimmed(_ text: String) -> String {
        String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
