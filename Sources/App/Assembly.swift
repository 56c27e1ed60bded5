import Logging
import PayPulseAWS
import PayPulseDomain
import PayPulseEmbedded
import PayPulseGoogle
import PayPulseIssuerKeys
import PayPulsePorts
import PayPulseTransport

/// The composition root's parts: the configuration read at start, the process logger, the
/// one HTTP client, and a builder for each adapter. A builder builds when it is called, so
/// each function's composition (`FunctionCompositions.swift`) builds only the adapters it
/// uses: user-profile builds no Google client and no cipher.
///
/// Builders do no I/O (an AWS client is a value; a KMS data key is fetched at the first
/// seal); only the embedded store's database is opened here, once, because every store on
/// it shares the one connection.
package struct Assembly: Sendable {
    /// The configuration read at start.
    package let configuration: AppConfiguration
    /// The process's logger (standard error).
    package let logger: Logger
    /// The process's HTTP client (AWS and Google calls share its connections).
    package let transport: any HTTPTransport
    /// The client of AWS calls: ``transport``, or with `AWS_CA_BUNDLE` one that trusts that
    /// file's CAs for AWS alone.
    private let awsTransport: any HTTPTransport
    /// The embedded store's database, when the store is embedded.
    private let database: EmbeddedDatabase?
    /// What each built port is wrapped in.
    private var wrappers = PortWrappers()

    /// Prepares the parts `configuration` names.
    ///
    /// - Parameters:
    ///   - configuration: What the environment said.
    ///   - logger: The process logger.
    ///   - inlineTransfers: Whether one transfer at a time may run on the calling thread (a
    ///     process answering one API request at a time; never a refresh run).
    /// - Throws: A `StoreError` when the embedded store cannot be opened.
    package static func build(configuration: AppConfiguration, logger: Logger, inlineTransfers: Bool = false) throws -> Assembly {
        let transport = CurlHTTPClient(
            configuration: CurlHTTPClient.Configuration(caBundlePath: configuration.caBundlePath, inlineTransfers: inlineTransfers)
        )
        let awsTransport = configuration.aws?.caBundlePath.map {
            CurlHTTPClient(configuration: CurlHTTPClient.Configuration(caBundlePath: $0, inlineTransfers: inlineTransfers))
        }
        let database = configuration.aws == nil
            ? try EmbeddedDatabase(stateDirectory: configuration.stateDirectory, logger: logger) : nil
        return Assembly(configuration: configuration, logger: logger, transport: transport, awsTransport: awsTransport ?? transport, database: database)
    }

    /// This assembly with each port it builds wrapped by `wrappers` (tests record calls).
    package func wrapping(_ wrappers: PortWrappers) -> Assembly {
        var wrapped = self
        wrapped.wrappers = wrappers
        return wrapped
    }

    /// Configuration secrets (the Google client ID, the JWT key): Secrets Manager, or the
    /// embedded store.
    package func secretStore() throws -> any SecretStore {
        guard let aws = configuration.aws else { return wrappers.secrets(EmbeddedSecretStore(database: try embedded(), logger: logger)) }
        return wrappers.secrets(AWSSecretStore(
            client: SecretsManagerClient(client: try client(.secretsManager, aws.secretsManagerEndpoint, "AWS_ENDPOINT_URL_SECRETS_MANAGER", aws))
        ))
    }

    /// Where users live: the users table, or the embedded store.
    package func userDirectory() throws -> any UserDirectory {
        guard let aws = configuration.aws else { return wrappers.users(EmbeddedUserDirectory(database: try embedded(), logger: logger)) }
        return wrappers.users(DynamoDBUserDirectory(client: try dynamoDB(aws), table: configuration.usersTable))
    }

    /// The security events acted on: the `security_events` table of the embedded store, or
    /// the DynamoDB table ``AppConfiguration/securityEventsTable`` on both AWS stores (a
    /// deployment has DynamoDB either way, for its users).
    package func securityEventLedger() throws -> any SecurityEventLedger {
        guard let aws = configuration.aws else {
            return wrappers.ledger(EmbeddedSecurityEventLedger(database: try embedded(), logger: logger))
        }
        return wrappers.ledger(DynamoDBSecurityEventLedger(client: try dynamoDB(aws), table: configuration.securityEventsTable))
    }

    /// Google's latest word on each Google account (``GoogleAccountWords``): the
    /// `google_account_words` table of the embedded store, or items of the security-events
    /// table on both AWS stores.
    package func googleAccountWords() throws -> any GoogleAccountWords {
        guard let aws = configuration.aws else { return wrappers.words(EmbeddedGoogleAccountWords(database: try embedded())) }
        return wrappers.words(DynamoDBGoogleAccountWords(client: try dynamoDB(aws), table: configuration.securityEventsTable))
    }

    /// What a vault consults Google's word with: the words, and a purge's recovery window.
    package func googleWordCheck() throws -> GoogleWordCheck {
        GoogleWordCheck(words: try googleAccountWords(), recoveryWindowDays: configuration.disconnectRecoveryDays)
    }

    /// Each user's allowance of store-tokens posts (``AppConfiguration/storeTokensPerMinute``):
    /// the `request_quotas` table of the embedded store, or the DynamoDB table
    /// ``AppConfiguration/requestQuotasTable`` on both AWS stores.
    package func requestQuota() throws -> any RequestQuota {
        let rule = QuotaRule(limit: configuration.storeTokensPerMinute)
        guard let aws = configuration.aws else { return wrappers.quota(EmbeddedRequestQuota(database: try embedded(), rule: rule)) }
        return wrappers.quota(DynamoDBRequestQuota(client: try dynamoDB(aws), table: configuration.requestQuotasTable, rule: rule))
    }

    /// Where token sets live, values and all: secrets `gmail/user/{id}` in ``secretStore()``,
    /// or the DynamoDB token table with its KMS envelope cipher.
    package func grantStore() throws -> any GrantStore {
        wrappers.grants(try unwrappedGrantStore())
    }

    /// The grants' states without their values: on DynamoDB, no KMS client and no cipher.
    package func grantStates() throws -> any GrantStates {
        guard let aws = configuration.aws, let tokenTable = configuration.tokenTable else { return wrappers.states(try unwrappedGrantStore()) }
        return wrappers.states(DynamoDBGrantStates(client: try dynamoDB(aws), table: tokenTable.table))
    }

    /// Google's OAuth endpoints.
    package func googleOAuth() -> any GoogleOAuth {
        wrappers.google(GoogleOAuthClient(
            tokenEndpoint: configuration.google.tokenEndpoint, revokeEndpoint: configuration.google.revokeEndpoint, transport: transport,
            logger: logger
        ))
    }

    /// The JWT settings, reading their secret from `secrets` when one is named.
    ///
    /// - Throws: ``ConfigurationError`` naming the variable at fault, or the store's error.
    package func authSettings(secrets: any SecretStore) async throws -> AuthSettings {
        let settings = try await configuration.jwt.authSettings { id in try await secrets.getSecretValue(name: id, stage: .current).string }
        if settings.usesDevelopmentKey {
            logger.notice("JWTs are verified with the documented development key (PAYPULSE_JWT_SECRET is not set)")
        }
        return settings
    }

    /// The authenticator the API functions share: under `jwks` it fetches the issuer's keys
    /// through the transport that trusts the system's CAs (the same as Google's), on the
    /// first token, not at start.
    ///
    /// - Throws: ``ConfigurationError`` naming the variable at fault, or the store's error.
    package func authenticator(secrets: any SecretStore) async throws -> Authenticator {
        let settings = try await authSettings(secrets: secrets)
        guard let location = try configuration.jwt.issuerKeyLocation() else { return Authenticator(settings: settings) }
        return Authenticator(settings: settings, issuerKeys: HTTPIssuerKeySource(location: location, transport: transport, logger: logger))
    }

    /// Google's Cross-Account Protection keys and issuer, found through the RISC discovery
    /// document (`GOOGLE_RISC_CONFIGURATION_URL`) over the transport that trusts the
    /// system's CAs.
    package func securityEventKeys() -> any IssuerKeySource {
        HTTPIssuerKeySource(location: .riscConfiguration(configuration.google.riscConfigurationURL), transport: transport, logger: logger)
    }

    /// Where the grants' lifecycle events go: the EventBridge bus `PAYPULSE_EVENT_BUS` (none
    /// when it is not set), or the embedded store's events table.
    /// - Parameter metrics: where each publishing attempt's counts go.
    package func lifecyclePublisher(metrics: any MetricsSink) throws -> LifecyclePublisher? {
        let bus: any LifecycleEventBus
        if let aws = configuration.aws {
            guard let name = configuration.eventBus else { return nil }
            bus = EventBridgeBus(client: try client(.eventBridge, aws.eventBridgeEndpoint, "AWS_ENDPOINT_URL_EVENTBRIDGE", aws), bus: name)
        } else {
            bus = EmbeddedLifecycleEvents(database: try embedded())
        }
        return LifecyclePublisher(
            bus: wrappers.events(bus), metrics: metrics, logger: logger, failingSpan: Double(configuration.refreshFailingDays) * 86_400,
            requestBudget: .milliseconds(configuration.eventPublishMilliseconds), maxPending: configuration.eventMaxPending
        )
    }

    /// The embedded store's events table, for the developer tools that list it; `nil` on AWS.
    package func embeddedLifecycleEvents() throws -> EmbeddedLifecycleEvents? {
        configuration.aws == nil ? EmbeddedLifecycleEvents(database: try embedded()) : nil
    }

    /// Every store at once, for the developer tools that use them all (`paypulse`, `serve`).
    package func backends() throws -> Backends {
        Backends(secrets: try secretStore(), grants: try grantStore(), users: try userDirectory())
    }

    private func unwrappedGrantStore() throws -> any GrantStore {
        guard let aws = configuration.aws, let tokenTable = configuration.tokenTable else {
            return SecretsManagerGrantStore(try secretStore())
        }
        let kms = KMSClient(client: try client(.kms, aws.kmsEndpoint, "AWS_ENDPOINT_URL_KMS", aws))
        return DynamoDBGrantStore(
            client: try dynamoDB(aws), table: tokenTable.table, cipher: EnvelopeCipher(keys: DataKeyCache(service: kms, keyID: tokenTable.kmsKeyID)),
            due: .refresh(configuration.refresh)
        )
    }

    private func embedded() throws -> EmbeddedDatabase {
        guard let database else { throw ConfigurationError(variable: "PAYPULSE_STORE", problem: "the embedded store was not opened") }
        return database
    }

    private func dynamoDB(_ aws: AWSConfiguration) throws -> DynamoDBClient {
        DynamoDBClient(client: try client(.dynamoDB, aws.dynamoDBEndpoint, "AWS_ENDPOINT_URL_DYNAMODB", aws))
    }

    private func client(_ service: AWSService, _ endpoint: String, _ variable: String, _ aws: AWSConfiguration) throws -> AWSJSONClient {
        do {
            return try AWSJSONClient(
                settings: .init(service: service, region: aws.region, endpoint: endpoint, credentials: aws.credentials), transport: awsTransport,
                logger: logger
            )
        } catch {
            throw ConfigurationError(variable: variable, problem: "\(error)")
        }
    }
}

/// What an ``Assembly`` puts around each port it builds: nothing in the product; a test
/// wraps the ports in recorders (or puts a stand-in for Google) to see what each
/// function's composition calls.
package struct PortWrappers: Sendable {
    /// Around each ``SecretStore``.
    package var secrets: @Sendable (any SecretStore) -> any SecretStore = { $0 }
    /// Around each ``UserDirectory``.
    package var users: @Sendable (any UserDirectory) -> any UserDirectory = { $0 }
    /// Around each ``GrantStore``.
    package var grants: @Sendable (any GrantStore) -> any GrantStore = { $0 }
    /// Around each ``GrantStates``.
    package var states: @Sendable (any GrantStates) -> any GrantStates = { $0 }
    /// Around each ``SecurityEventLedger``.
    package var ledger: @Sendable (any SecurityEventLedger) -> any SecurityEventLedger = { $0 }
    /// Around each ``GoogleAccountWords``.
    package var words: @Sendable (any GoogleAccountWords) -> any GoogleAccountWords = { $0 }
    /// Around each ``RequestQuota``.
    package var quota: @Sendable (any RequestQuota) -> any RequestQuota = { $0 }
    /// Around (or instead of) each ``LifecycleEventBus``.
    package var events: @Sendable (any LifecycleEventBus) -> any LifecycleEventBus = { $0 }
    /// Around (or instead of) each ``GoogleOAuth``.
    package var google: @Sendable (any GoogleOAuth) -> any GoogleOAuth = { $0 }

    /// Wrappers that change nothing.
    package init() {}
}
