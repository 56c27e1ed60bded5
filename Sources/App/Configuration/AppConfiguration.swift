import PayPulseDomain
import PayPulseRuntime

/// Where secrets and users live.
public enum StoreBackend: String, Sendable, Equatable, CaseIterable {
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
public struct AppConfiguration: Sendable, Equatable {
    /// What is known before anything can fail: logging, the Runtime API, Lambda or not.
    public let process: ProcessSettings
    /// The storage backend (`PAYPULSE_STORE`; AWS inside Lambda, else embedded).
    public let store: StoreBackend
    /// The embedded store's directory (`PAYPULSE_STATE_DIR`).
    public let stateDirectory: String
    /// The users table name (`USERS_TABLE`).
    public let usersTable: String
    /// AWS settings; present unless ``store`` is ``StoreBackend/embedded``.
    public let aws: AWSConfiguration?
    /// The token table and its KMS key; present when ``store`` is ``StoreBackend/dynamodb``.
    public let tokenTable: TokenTableConfiguration?
    /// How API requests are authenticated (`PAYPULSE_JWT_*`).
    public let jwt: JWTConfiguration
    /// Google's endpoints and the client-ID secret.
    public let google: GoogleSettings
    /// How the refresh job runs (`REFRESH_*`).
    public let refresh: RefreshSettings
    /// The recovery window of a disconnect (`DISCONNECT_RECOVERY_DAYS`, 7–30).
    public let disconnectRecoveryDays: Int
    /// The trusted CA certificates file for HTTPS (`PAYPULSE_CA_BUNDLE`); `nil` keeps
    /// libcurl's built-in path. A Lambda bundle's `bootstrap` sets it to the host's file.
    public let caBundlePath: String?

    /// Whether the process runs inside AWS Lambda (`AWS_LAMBDA_FUNCTION_NAME` set).
    public var insideLambda: Bool { process.insideLambda }

    /// The default users table name.
    public static let defaultUsersTable = "paypulse-users"
    /// The default embedded state directory, relative to the working directory.
    public static let defaultStateDirectory = ".paypulse"
}

/// The part of the configuration that cannot fail to read, so a process can log and report
/// a bad configuration through the Lambda Runtime API.
public struct ProcessSettings: Sendable, Equatable {
    /// `AWS_LAMBDA_FUNCTION_NAME`, set by Lambda in every function.
    public let functionName: String?
    /// `AWS_LAMBDA_RUNTIME_API` (`host:port`): present, the process serves the Runtime API
    /// loop; absent, it answers one event on standard input.
    public let runtimeAPI: String?
    /// Log level and format.
    public let logging: LogSettings

    /// Whether the process runs inside AWS Lambda.
    public var insideLambda: Bool { functionName != nil }
}
