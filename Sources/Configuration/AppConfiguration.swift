import PayPulseAWS
import PayPulseDomain
import PayPulseSigV4

/// Where secrets and users live.
public enum StoreBackend: String, Sendable, Equatable, CaseIterable {
    /// One SQLite file under the state directory.
    case embedded
    /// Secrets Manager and DynamoDB over SigV4.
    case aws
}

/// Everything the executables read from the environment, read once at start.
public struct AppConfiguration: Sendable, Equatable {
    /// The storage backend (`PAYPULSE_STORE`).
    public var store: StoreBackend
    /// The embedded store's directory (`PAYPULSE_STATE_DIR`).
    public var stateDirectory: String
    /// The users table name (`USERS_TABLE`).
    public var usersTable: String
    /// Whether the process runs inside AWS Lambda (`AWS_LAMBDA_FUNCTION_NAME` set).
    public var insideLambda: Bool
    /// AWS settings; present when ``store`` is ``StoreBackend/aws``.
    public var aws: AWSConfiguration?
    /// Google's endpoints and the client-ID secret.
    public var google: GoogleSettings
    /// How the refresh job runs.
    public var refresh: RefreshSettings
    /// The recovery window of a disconnect (`DISCONNECT_RECOVERY_DAYS`, 7–30).
    public var disconnectRecoveryDays: Int
    /// The trusted CA certificates file for HTTPS (`PAYPULSE_CA_BUNDLE`); `nil` keeps
    /// libcurl's built-in path. A Lambda bundle's `bootstrap` sets it to the host's file.
    public var caBundlePath: String?

    /// Creates a configuration.
    public init(
        store: StoreBackend, stateDirectory: String, usersTable: String, insideLambda: Bool, aws: AWSConfiguration?,
        google: GoogleSettings = GoogleSettings(), refresh: RefreshSettings = RefreshSettings(), disconnectRecoveryDays: Int = 7,
        caBundlePath: String? = nil
    ) {
        self.store = store
        self.stateDirectory = stateDirectory
        self.usersTable = usersTable
        self.insideLambda = insideLambda
        self.aws = aws
        self.google = google
        self.refresh = refresh
        self.disconnectRecoveryDays = disconnectRecoveryDays
        self.caBundlePath = caBundlePath
    }
}

/// How to reach AWS: region, credentials and one endpoint per service.
public struct AWSConfiguration: Sendable, Equatable {
    /// The region (`AWS_REGION`, then `AWS_DEFAULT_REGION`).
    public var region: String
    /// The credentials (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`).
    public var credentials: AWSCredentials
    /// The Secrets Manager endpoint.
    public var secretsManagerEndpoint: String
    /// The DynamoDB endpoint.
    public var dynamoDBEndpoint: String

    /// Creates AWS settings.
    public init(region: String, credentials: AWSCredentials, secretsManagerEndpoint: String, dynamoDBEndpoint: String) {
        self.region = region
        self.credentials = credentials
        self.secretsManagerEndpoint = secretsManagerEndpoint
        self.dynamoDBEndpoint = dynamoDBEndpoint
    }
}
