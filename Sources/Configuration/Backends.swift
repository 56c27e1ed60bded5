import PayPulseDomain
import Logging
import PayPulseAWS
import PayPulseEmbedded
import PayPulsePorts
import PayPulseSigV4
import PayPulseTransport

/// The ports wired to the adapters a configuration names: made once per process, before
/// any request is served.
public struct Backends: Sendable {
    /// Where token sets live.
    public let secrets: any SecretStore
    /// Where users live.
    public let users: any UserDirectory

    /// Creates backends from ports (tests pass in-memory or embedded ones).
    public init(secrets: any SecretStore, users: any UserDirectory) {
        self.secrets = secrets
        self.users = users
    }

    /// Opens the embedded store or builds the AWS clients, as `configuration` says.
    /// - Throws: `StoreError` when the embedded file cannot be opened, or
    ///   ``ConfigurationError`` when an AWS endpoint is unusable.
    public static func make(configuration: AppConfiguration, transport: any HTTPTransport, logger: Logger) throws -> Backends {
        switch configuration.store {
        case .embedded:
            let database = try EmbeddedDatabase(stateDirectory: configuration.stateDirectory, logger: logger)
            return Backends(
                secrets: EmbeddedSecretStore(database: database, logger: logger),
                users: EmbeddedUserDirectory(database: database, logger: logger)
            )
        case .aws:
            guard let aws = configuration.aws else {
                throw ConfigurationError(variable: "PAYPULSE_STORE", problem: "aws chosen but no AWS settings were read")
            }
            func client(_ service: AWSService, _ endpoint: String) throws -> AWSJSONClient {
                do {
                    return try AWSJSONClient(
                        settings: .init(service: service, region: aws.region, endpoint: endpoint, credentials: aws.credentials),
                        transport: transport, logger: logger
                    )
                } catch {
                    throw ConfigurationError(variable: service.endpointVariable, problem: "\(error)")
                }
            }
            return Backends(
                secrets: AWSSecretStore(client: SecretsManagerClient(client: try client(.secretsManager, aws.secretsManagerEndpoint))),
                users: DynamoDBUserDirectory(client: DynamoDBClient(client: try client(.dynamoDB, aws.dynamoDBEndpoint)), table: configuration.usersTable)
            )
        }
    }
}
