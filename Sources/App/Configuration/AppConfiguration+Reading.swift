#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PayPulseDomain
import PayPulseRuntime

extension AppConfiguration {
    /// Reads the process environment (with `overrides` winning): the settings that cannot
    /// fail, and the whole configuration or the first bad variable.
    /// - Parameters:
    ///   - overrides: Values that win over the environment (the CLI's demo points Google at
    ///     its local stand-in).
    ///   - defaultLogLevel: The level when no variable names one (the CLI is quieter).
    public static func read(
        overrides: [String: String] = [:], defaultLogLevel: Logger.Level = LogSettings.defaultLevel
    ) -> (process: ProcessSettings, configuration: Result<AppConfiguration, ConfigurationError>) {
        read(ProcessInfo.processInfo.environment.merging(overrides) { _, new in new }, defaultLogLevel: defaultLogLevel)
    }

    /// Reads `environment`: the settings that cannot fail, and the whole configuration or
    /// the first bad variable.
    public static func read(
        _ environment: [String: String], defaultLogLevel: Logger.Level = LogSettings.defaultLevel
    ) -> (process: ProcessSettings, configuration: Result<AppConfiguration, ConfigurationError>) {
        let reader = EnvironmentReader(variables: environment)
        let process = ProcessSettings(
            functionName: reader.value("AWS_LAMBDA_FUNCTION_NAME"), runtimeAPI: reader.value("AWS_LAMBDA_RUNTIME_API"),
            logging: LogSettings.read(reader, defaultLevel: defaultLogLevel)
        )
        return (process, Result { () throws(ConfigurationError) in try AppConfiguration(reader, process: process) })
    }

    /// Reads a configuration from `environment`.
    /// - Throws: ``ConfigurationError`` naming the first bad variable.
    public static func fromEnvironment(_ environment: [String: String]) throws(ConfigurationError) -> AppConfiguration {
        try read(environment).configuration.get()
    }

    private init(_ reader: EnvironmentReader, process: ProcessSettings) throws(ConfigurationError) {
        if let raw = reader.value("PAYPULSE_STORE") {
            guard let parsed = StoreBackend(rawValue: raw.lowercased()) else {
                throw ConfigurationError(variable: "PAYPULSE_STORE", problem: "expected 'embedded', 'aws' or 'dynamodb', got '\(raw)'")
            }
            store = parsed
        } else {
            store = process.insideLambda ? .aws : .embedded
        }
        let usersTable = try reader.tableName("USERS_TABLE", default: Self.defaultUsersTable)
        let caBundlePath = reader.value("PAYPULSE_CA_BUNDLE")
        if let caBundlePath, !FileManager.default.isReadableFile(atPath: caBundlePath) {
            throw ConfigurationError(variable: "PAYPULSE_CA_BUNDLE", problem: "no readable file at '\(caBundlePath)'")
        }
        self.process = process
        self.usersTable = usersTable
        self.stateDirectory = reader.value("PAYPULSE_STATE_DIR") ?? Self.defaultStateDirectory
        self.caBundlePath = caBundlePath
        self.aws = store == .embedded ? nil : try AWSConfiguration(reader, store: store)
        self.tokenTable = store == .dynamodb ? try TokenTableConfiguration(reader) : nil
        self.jwt = JWTConfiguration(reader, insideLambda: process.insideLambda)
        self.google = try GoogleSettings(reader)
        let mode: RefreshMode
        if let raw = reader.value("REFRESH_MODE") {
            guard let parsed = RefreshMode(rawValue: raw.lowercased()) else {
                throw ConfigurationError(variable: "REFRESH_MODE", problem: "expected 'eager' or 'keepalive', got '\(raw)'")
            }
            mode = parsed
        } else {
            mode = .eager
        }
        self.refresh = RefreshSettings(
            windowSeconds: try reader.integer("REFRESH_WINDOW_SECONDS", default: 900, range: 0...86_400),
            concurrency: try reader.integer("REFRESH_CONCURRENCY", default: 8, range: 1...256),
            maxWritesPerSecond: try reader.integer("REFRESH_MAX_WRITES_PER_SECOND", default: 20, range: 1...10_000),
            stopMarginSeconds: try reader.integer("REFRESH_STOP_MARGIN_SECONDS", default: 30, range: 0...900),
            // At most 30 days: Google expires a refresh token left unused for six months.
            mode: mode, keepAliveSeconds: try reader.integer("KEEPALIVE_SECONDS", default: 86_400, range: 1...2_592_000)
        )
        self.disconnectRecoveryDays = try reader.integer("DISCONNECT_RECOVERY_DAYS", default: 7, range: 7...30)
    }
}
