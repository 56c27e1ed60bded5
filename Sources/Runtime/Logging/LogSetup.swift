#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging

/// The logger an executable starts with: stderr, level and format from the environment.
///
/// - Level: `AWS_LAMBDA_LOG_LEVEL` (Lambda's names, see ``LambdaLogLevel``), else
///   `LOG_LEVEL` (swift-log's names), else ``defaultLevel``.
/// - Format: JSON lines when `AWS_LAMBDA_LOG_FORMAT=JSON`, or inside Lambda
///   (`AWS_LAMBDA_FUNCTION_NAME` set) unless `AWS_LAMBDA_LOG_FORMAT=Text`; text otherwise.
/// - Every line logged while an invocation runs carries its `requestId` (from
///   ``InvocationContext/current``), whichever logger wrote it.
///
/// No `LoggingSystem.bootstrap`: loggers are passed down explicitly, and bootstrap can
/// only run once per process, which tests cannot live with.
public enum LogSetup {
    /// The environment variable naming the level outside Lambda.
    public static let levelVariable = "LOG_LEVEL"
    /// Lambda's advanced logging level; wins over `LOG_LEVEL`.
    public static let lambdaLevelVariable = "AWS_LAMBDA_LOG_LEVEL"
    /// Lambda's log format, `JSON` or `Text`.
    public static let lambdaFormatVariable = "AWS_LAMBDA_LOG_FORMAT"
    /// Set by Lambda in every function's environment.
    public static let functionNameVariable = "AWS_LAMBDA_FUNCTION_NAME"
    /// The level when no variable names one.
    public static let defaultLevel: Logger.Level = .info

    /// The level `text` names: `trace`, `debug`, `info`, `notice`, `warning`, `error` or
    /// `critical`, in any case, surrounding blanks ignored.
    ///
    /// - Parameter text: The value of `LOG_LEVEL`.
    /// - Returns: The level, or `nil` if `text` names none.
    public static func level(named text: String) -> Logger.Level? {
        Logger.Level(rawValue: trimmed(text).lowercased())
    }

    /// The format the environment asks for (see the type's documentation).
    ///
    /// - Parameter environment: The variables to read.
    /// - Returns: `.json` or `.text`.
    public static func format(environment: [String: String]) -> LogFormat {
        switch environment[lambdaFormatVariable].map({ trimmed($0).lowercased() }) {
        case "json": .json
        case "text": .text
        default: (environment[functionNameVariable] ?? "").isEmpty ? .text : .json
        }
    }

    /// Adds the running invocation's `requestId` to every line.
    public static let invocationMetadata = Logger.MetadataProvider {
        guard let context = InvocationContext.current else { return [:] }
        return ["requestId": .string(context.requestID)]
    }

    /// A logger writing to standard error.
    ///
    /// A level variable that names no level does not stop the executable (logging must
    /// not be why a request fails); the logger runs at ``defaultLevel`` and its first line
    /// is a warning naming the variable.
    ///
    /// - Parameters:
    ///   - label: The label on every text line, e.g. the executable name.
    ///   - environment: Where the variables are read; the process environment by default.
    ///   - format: The line format; `nil` chooses from the environment.
    /// - Returns: The logger.
    public static func makeLogger(
        label: String, environment: [String: String] = ProcessInfo.processInfo.environment, format: LogFormat? = nil
    ) -> Logger {
        makeLogger(label: label, environment: environment, format: format ?? self.format(environment: environment), fileDescriptor: 2)
    }

    static func makeLogger(label: String, environment: [String: String], format: LogFormat, fileDescriptor: Int32) -> Logger {
        let (variable, raw, level) = chosenLevel(environment)
        let handler = StderrLogHandler(
            label: label, level: level ?? defaultLevel, format: format, metadataProvider: invocationMetadata,
            fileDescriptor: fileDescriptor
        )
        let logger = Logger(label: label) { _ in handler }
        if level == nil, !trimmed(raw).isEmpty {
            let allowed = variable == lambdaLevelVariable
                ? "TRACE,DEBUG,INFO,WARN,ERROR,FATAL" : Logger.Level.allCases.map(\.rawValue).joined(separator: ",")
            logger.warning(
                "\(variable) is not a log level; using \(defaultLevel.rawValue)", metadata: ["value": "\(raw)", "allowed": "\(allowed)"]
            )
        }
        return logger
    }

    /// The variable that decides, its raw value, and the level it names (if any).
    private static func chosenLevel(_ environment: [String: String]) -> (variable: String, raw: String, level: Logger.Level?) {
        if let raw = environment[lambdaLevelVariable], !trimmed(raw).isEmpty {
            return (lambdaLevelVariable, raw, LambdaLogLevel.level(named: trimmed(raw)))
        }
        let raw = environment[levelVariable] ?? ""
        return (levelVariable, raw, level(named: raw))
    }

    private static func trimmed(_ text: String) -> String {
        String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
