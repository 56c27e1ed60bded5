#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PayPulseDomain
import PayPulseRuntime

/// Where secrets and users live.
package enum StoreBackend: String, Sendable, Equatable, CaseIterable {
    /// One SQLite file under the state directory.
    case embedded
    /// Secrets Manager and DynamoDB over SigV4.
    case aws
    /// Token sets in a DynamoDB table, sealed with KMS data keys; configuration secrets in
    /// Secrets Manager and users in DynamoDB, as with ``aws``.
    case dynamodb
}

/// Every setting a process reads from its environment, read once at start by
/// ``AppConfiguration/read(_:defaultLogLevel:)``; nothing else in the project reads the
/// environment.
package struct AppConfiguration: Sendable, Equatable {
    /// What is known before anything can fail: logging, the Runtime API, Lambda or not.
    package let process: ProcessSettings
    /// The storage backend (`PAYPULSE_STORE`; AWS inside Lambda, else embedded).
    package let store: StoreBackend
    /// The embedded store's directory (`PAYPULSE_STATE_DIR`).
    package let stateDirectory: String
    /// The users table name (`USERS_TABLE`).
    package let usersTable: String
    /// The table of the security events acted on (`SECURITY_EVENTS_TABLE`), used unless
    /// ``store`` is ``StoreBackend/embedded``.
    package let securityEventsTable: String
    /// The table of each user's counted store-tokens posts (`REQUEST_QUOTAS_TABLE`), used
    /// unless ``store`` is ``StoreBackend/embedded``.
    package let requestQuotasTable: String
    /// The most store-tokens posts one user may make in any minute
    /// (`STORE_TOKENS_PER_MINUTE`, 1–1,000, default 10); more answer 429.
    package let storeTokensPerMinute: Int
    /// AWS settings; present unless ``store`` is ``StoreBackend/embedded``.
    package let aws: AWSConfiguration?
    /// The token table and its KMS key; present when ``store`` is ``StoreBackend/dynamodb``.
    package let tokenTable: TokenTableConfiguration?
    /// How API requests are authenticated (`PAYPULSE_JWT_*`).
    package let jwt: JWTConfiguration
    /// Google's endpoints and the client-ID secret.
    package let google: GoogleSettings
    /// How the refresh job runs (`REFRESH_*`).
    package let refresh: RefreshSettings
    /// The recovery window of a disconnect (`DISCONNECT_RECOVERY_DAYS`, 7–30).
    package let disconnectRecoveryDays: Int
    /// The EventBridge bus of the grants' lifecycle events (`PAYPULSE_EVENT_BUS`, a name or
    /// an ARN); on the AWS stores, `nil` publishes none. The embedded store keeps its events
    /// in its own file whatever this says.
    package let eventBus: String?
    /// How many days refreshes may fail for now before `Gmail Refresh Failing`
    /// (`PAYPULSE_REFRESH_FAILING_DAYS`, 1–30, default 3).
    package let refreshFailingDays: Int
    /// How long a request that changed a grant tries to publish its lifecycle events before
    /// it answers, in milliseconds (`PAYPULSE_EVENT_PUBLISH_MS`, 100–10,000, default 1,000);
    /// what is left goes with the next invocation that reads the grant, or the refresh run's sweep.
    package let eventPublishMilliseconds: Int
    /// The most lifecycle events a grant keeps pending (`PAYPULSE_EVENT_MAX_PENDING`, 1–100,
    /// default 20); beyond it the oldest are dropped, counted in the `Dropped` metric.
    package let eventMaxPending: Int
    /// The trusted CA certificates file for HTTPS (`PAYPULSE_CA_BUNDLE`); `nil` keeps
    /// libcurl's built-in path. A Lambda bundle's `bootstrap` sets it to the host's file.
    package let caBundlePath: String?

    /// Whether the process runs inside AWS Lambda (`AWS_LAMBDA_FUNCTION_NAME` set).
    package var insideLambda: Bool { process.insideLambda }

    /// The default users table name.
    package static let defaultUsersTable = "paypulse-users"
    /// The default security events table name.
    package static let defaultSecurityEventsTable = "paypulse-security-events"
    /// The default request quotas table name.
    package static let defaultRequestQuotasTable = "paypulse-request-quotas"
    /// The default embedded state directory, relative to the working directory.
    package static let defaultStateDirectory = ".paypulse"
}

/// The part of the configuration that cannot fail to read, so a process can log and report
/// a bad configuration through the Lambda Runtime API.
package struct ProcessSettings: Sendable, Equatable {
    /// `AWS_LAMBDA_FUNCTION_NAME`, set by Lambda in every function.
    package let functionName: String?
    /// `AWS_LAMBDA_RUNTIME_API` (`host:port`): present, the process serves the Runtime API
    /// loop; absent, it answers one event on standard input.
    package let runtimeAPI: String?
    /// Log level and format.
    package let logging: LogSettings

    /// Whether the process runs inside AWS Lambda.
    package var insideLambda: Bool { functionName != nil }
}

extension AppConfiguration {
    /// Reads the process environment (with `overrides` winning): the settings that cannot
    /// fail, and the whole configuration or the first bad variable.
    /// - Parameters:
    ///   - overrides: Values that win over the environment (the CLI's demo points Google at
    ///     its local stand-in).
    ///   - defaultLogLevel: The level when no variable names one (the CLI is quieter).
    package static func read(
        overrides: [String: String] = [:], defaultLogLevel: Logger.Level = LogSettings.defaultLevel
    ) -> (process: ProcessSettings, configuration: Result<AppConfiguration, ConfigurationError>) {
        read(ProcessInfo.processInfo.environment.merging(overrides) { _, new in new }, defaultLogLevel: defaultLogLevel)
    }

    /// Reads `environment`: the settings that cannot fail, and the whole configuration or
    /// the first bad variable.
    package static func read(
        _ environment: [String: String], defaultLogLevel: Logger.Level = LogSettings.defaultLevel
    ) -> (process: ProcessSettings, configuration: Result<AppConfiguration, ConfigurationError>) {
        reading(EnvironmentReader(variables: environment), defaultLogLevel: defaultLogLevel)
    }

    /// The names of the variables a reading of `environment` asks for, set or not (a read
    /// stops at the first bad variable): what a deployment may set (`paypulse deploy-facts`).
    package static func variablesRead(_ environment: [String: String]) -> Set<String> {
        let asked = AskedNames()
        _ = reading(EnvironmentReader(variables: environment, asked: asked), defaultLogLevel: LogSettings.defaultLevel)
        return asked.names
    }

    private static func reading(
        _ reader: EnvironmentReader, defaultLogLevel: Logger.Level
    ) -> (process: ProcessSettings, configuration: Result<AppConfiguration, ConfigurationError>) {
        let process = ProcessSettings(
            functionName: reader.value("AWS_LAMBDA_FUNCTION_NAME"), runtimeAPI: reader.value("AWS_LAMBDA_RUNTIME_API"),
            logging: LogSettings.read(reader, defaultLevel: defaultLogLevel)
        )
        return (process, Result { () throws(ConfigurationError) in try AppConfiguration(reader, process: process) })
    }

    /// Reads a configuration from `environment`.
    /// - Throws: ``ConfigurationError`` naming the first bad variable.
    package static func fromEnvironment(_ environment: [String: String]) throws(ConfigurationError) -> AppConfiguration {
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
        let securityEventsTable = try reader.tableName("SECURITY_EVENTS_TABLE", default: Self.defaultSecurityEventsTable)
        let requestQuotasTable = try reader.tableName("REQUEST_QUOTAS_TABLE", default: Self.defaultRequestQuotasTable)
        let caBundlePath = try reader.readableFile("PAYPULSE_CA_BUNDLE")
        self.process = process
        self.requestQuotasTable = requestQuotasTable
        self.storeTokensPerMinute = try reader.integer("STORE_TOKENS_PER_MINUTE", default: 10, range: 1...1_000)
        self.usersTable = usersTable
        self.securityEventsTable = securityEventsTable
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
            maxWritesPerSecond: try reader.integer("REFRESH_MAX_WRITES_PER_SECOND", default: 20, range: RefreshSettings.acceptedWritesPerSecond),
            stopMarginSeconds: try reader.integer("REFRESH_STOP_MARGIN_SECONDS", default: 30, range: 0...900),
            // At most 30 days: Google expires a refresh token left unused for six months.
            mode: mode, keepAliveSeconds: try reader.integer("KEEPALIVE_SECONDS", default: 86_400, range: 1...2_592_000),
            googleWordLagSeconds: try reader.integer("GOOGLE_WORD_LAG_SECONDS", default: 600, range: 60...86_400)
        )
        self.disconnectRecoveryDays = try reader.integer("DISCONNECT_RECOVERY_DAYS", default: 7, range: 7...30)
        if let bus = reader.value("PAYPULSE_EVENT_BUS") {
            guard bus.count <= 1_600, bus.allSatisfy({ $0.isASCII && !$0.isWhitespace && !$0.isNewline }) else {
                throw ConfigurationError(variable: "PAYPULSE_EVENT_BUS", problem: "not an event bus name or ARN")
            }
            self.eventBus = bus
        } else {
            self.eventBus = nil
        }
        self.refreshFailingDays = try reader.integer("PAYPULSE_REFRESH_FAILING_DAYS", default: 3, range: 1...30)
        self.eventPublishMilliseconds = try reader.integer("PAYPULSE_EVENT_PUBLISH_MS", default: 1_000, range: 100...10_000)
        self.eventMaxPending = try reader.integer("PAYPULSE_EVENT_MAX_PENDING", default: LifecyclePublisher.defaultMaxPending, range: 1...100)
    }
}

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
    package static func fromEnvironment(_ environment: [String: String], defaultLevel: Logger.Level = LogSettings.defaultLevel) -> LogSettings {
        read(EnvironmentReader(variables: environment), defaultLevel: defaultLevel)
    }

    private static func trimmed(_ text: String) -> String {
        String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}

/// Where token sets live with `PAYPULSE_STORE=dynamodb`: the table and the KMS key their
/// data keys come from.
package struct TokenTableConfiguration: Sendable, Equatable {
    /// The tokens table (`TOKENS_TABLE`).
    package let table: String
    /// The KMS key id, ARN or alias data keys are generated under (`PAYPULSE_KMS_KEY_ID`).
    package let kmsKeyID: String

    /// The default tokens table name.
    package static let defaultTable = "paypulse-gmail-tokens"

    init(_ reader: EnvironmentReader) throws(ConfigurationError) {
        table = try reader.tableName("TOKENS_TABLE", default: Self.defaultTable)
        guard let keyID = reader.value("PAYPULSE_KMS_KEY_ID") else {
            throw ConfigurationError(variable: "PAYPULSE_KMS_KEY_ID", problem: "required when PAYPULSE_STORE=dynamodb: the KMS key that wraps the token sets' data keys")
        }
        guard keyID.count <= 2048, keyID.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
            throw ConfigurationError(variable: "PAYPULSE_KMS_KEY_ID", problem: "not a KMS key id, ARN or alias")
        }
        kmsKeyID = keyID
    }
}
