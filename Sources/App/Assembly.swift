import Logging
import PayPulseAWS
import PayPulseDomain
import PayPulseEmbedded
import PayPulseGoogle
import PayPulsePorts
import PayPulseTransport

/// The composition root: every adapter a process uses, built once from its configuration
/// before any event is served (the HTTP client, the stores, Google's endpoints, the JWT
/// settings). Handlers are made from it in `Assembly+Handlers.swift`.
public struct Assembly: Sendable {
    /// The configuration read at start.
    public let configuration: AppConfiguration
    /// The process's logger (standard error).
    public let logger: Logger
    /// The one HTTP client of the process (AWS and Google calls share its connections).
    public let transport: any HTTPTransport
    /// The storage ports.
    public let backends: Backends
    /// Google's OAuth endpoints.
    public let google: any GoogleOAuth
    /// The JWT settings; `nil` for a process that serves no API route (token-refresh needs
    /// no JWT key, so none is required of it).
    public let authSettings: AuthSettings?

    /// Builds every adapter `configuration` names.
    /// - Parameters:
    ///   - configuration: What the environment said.
    ///   - logger: The process logger.
    ///   - authenticates: Whether to load the JWT settings (reading their secret if named).
    ///   - inlineTransfers: Whether one transfer at a time may run on the calling thread (a
    ///     process answering one API request at a time; never a refresh run).
    /// - Throws: ``ConfigurationError`` naming the variable at fault, or a `StoreError` when
    ///   the embedded store cannot be opened.
    public static func build(
        configuration: AppConfiguration, logger: Logger, authenticates: Bool = true, inlineTransfers: Bool = false
    ) async throws -> Assembly {
        let transport = CurlHTTPClient(
            configuration: CurlHTTPClient.Configuration(caBundlePath: configuration.caBundlePath, inlineTransfers: inlineTransfers)
        )
        let backends = try makeBackends(configuration, transport: transport, logger: logger)
        let google = GoogleOAuthClient(
            tokenEndpoint: configuration.google.tokenEndpoint, revokeEndpoint: configuration.google.revokeEndpoint,
            transport: transport, logger: logger
        )
        var authSettings: AuthSettings?
        if authenticates {
            let secrets = backends.secrets
            let settings = try await configuration.jwt.authSettings { id in try await secrets.getSecretValue(name: id, stage: .current).string }
            if settings.usesDevelopmentKey {
                logger.notice("JWTs are verified with the documented development key (PAYPULSE_JWT_SECRET is not set)")
            }
            authSettings = settings
        }
        return Assembly(
            configuration: configuration, logger: logger, transport: transport, backends: backends, google: google, authSettings: authSettings
        )
    }

    /// Opens the embedded store or builds the AWS clients (and, for the DynamoDB token
    /// store, its table client and envelope cipher).
    private static func makeBackends(_ configuration: AppConfiguration, transport: any HTTPTransport, logger: Logger) throws -> Backends {
        guard let aws = configuration.aws else {
            let database = try EmbeddedDatabase(stateDirectory: configuration.stateDirectory, logger: logger)
            return Backends(
                secrets: EmbeddedSecretStore(database: database, logger: logger), users: EmbeddedUserDirectory(database: database, logger: logger)
            )
        }
        func client(_ service: AWSService, _ endpoint: String, variable: String) throws -> AWSJSONClient {
            do {
                return try AWSJSONClient(
                    settings: .init(service: service, region: aws.region, endpoint: endpoint, credentials: aws.credentials),
                    transport: transport, logger: logger
                )
            } catch {
                throw ConfigurationError(variable: variable, problem: "\(error)")
            }
        }
        let secretsManager = try client(.secretsManager, aws.secretsManagerEndpoint, variable: "AWS_ENDPOINT_URL_SECRETS_MANAGER")
        let dynamoDB = DynamoDBClient(client: try client(.dynamoDB, aws.dynamoDBEndpoint, variable: "AWS_ENDPOINT_URL_DYNAMODB"))
        var grants: (any GrantStore)?
        if let tokenTable = configuration.tokenTable {
            let kms = KMSClient(client: try client(.kms, aws.kmsEndpoint, variable: "AWS_ENDPOINT_URL_KMS"))
            let keys = DataKeyCache(service: kms, keyID: tokenTable.kmsKeyID)
            grants = DynamoDBGrantStore(
                client: dynamoDB, table: tokenTable.table, cipher: EnvelopeCipher(keys: keys), due: .refresh(configuration.refresh)
            )
        }
        return Backends(
            secrets: AWSSecretStore(client: SecretsManagerClient(client: secretsManager)), grants: grants,
            users: DynamoDBUserDirectory(client: dynamoDB, table: configuration.usersTable)
        )
    }
}
