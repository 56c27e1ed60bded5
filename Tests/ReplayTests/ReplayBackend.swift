import Foundation
import PayPulseAWS
import PayPulseEmbedded
import PayPulsePorts
import PayPulseDomain
import PayPulseTestSupport
import PayPulseTransport
import Logging

/// A fresh store for one case, the environment that points the executables at it, and a
/// way to read back what they stored.
struct ReplayBackend {
    var environment: [String: String]
    var secrets: any SecretStore
    /// Where the functions keep token sets: `secrets` through the Secrets Manager mapping,
    /// or the DynamoDB token table.
    var grants: any GrantStore
    var users: any UserDirectory
    var cleanUp: () -> Void

    /// Whether the token store lists only what may be due (the DynamoDB due index).
    var listsOnlyDue: Bool { grants.listsOnlyDue }

    private static let quiet = Logger(label: "replay") { _ in SwiftLogNoOpLogHandler() }

    /// The variables every run gets: debug logs, the development key, nothing inherited
    /// that could point the executable elsewhere.
    static func baseEnvironment() -> [String: String] {
        ["LOG_LEVEL": "trace", "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": NSTemporaryDirectory()]
    }

    static func embedded() throws -> ReplayBackend {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("replay-state-\(UUID().uuidString)").path
        let database = try EmbeddedDatabase(stateDirectory: directory, logger: quiet)
        var environment = baseEnvironment()
        environment["PAYPULSE_STORE"] = "embedded"
        environment["PAYPULSE_STATE_DIR"] = directory
        let secrets = EmbeddedSecretStore(database: database, logger: quiet)
        return ReplayBackend(
            environment: environment, secrets: secrets, grants: SecretsManagerGrantStore(secrets),
            users: EmbeddedUserDirectory(database: database, logger: quiet),
            cleanUp: { try? FileManager.default.removeItem(atPath: directory) }
        )
    }

    /// A private moto_server, emptied before each case (cases on it run one at a time).
    private static let moto = Task { try await MotoServer.launchPrivate() }

    /// AWS settings whose endpoint is a loopback port nobody listens on.
    static func unreachableAWSEnvironment() throws -> [String: String] {
        var environment = baseEnvironment()
        environment["PAYPULSE_STORE"] = "aws"
        environment["AWS_REGION"] = AWSTestClients.region
        environment["AWS_ACCESS_KEY_ID"] = AWSTestClients.motoCredentials.accessKeyID
        environment["AWS_SECRET_ACCESS_KEY"] = AWSTestClients.motoCredentials.secretAccessKey
        environment["AWS_ENDPOINT_URL"] = "http://127.0.0.1:\(try RefusingLoopbackPort.make())"
        return environment
    }

    /// A fresh backend on `server` (emptied first), the shared private moto by default.
    static func aws(on server: MotoServer? = nil) async throws -> ReplayBackend {
        let endpoint = if let server { server.endpoint } else { try await moto.value.endpoint }
        let reset = try await AWSTestClients.transport.execute(.init(method: "POST", url: endpoint + "/moto-api/reset"))
        guard reset.status == 200 else { throw ReplayError("moto reset answered \(reset.status)") }
        let users = DynamoDBUserDirectory(client: try AWSTestClients.dynamoDB(endpoint: endpoint), table: "paypulse-users")
        try await users.createTableIfNeeded()
        // The security events acted on and the request quotas (the default SECURITY_EVENTS_TABLE
        // and REQUEST_QUOTAS_TABLE), as setup creates them.
        try await DynamoDBSecurityEventLedger(client: try AWSTestClients.dynamoDB(endpoint: endpoint), table: "paypulse-security-events")
            .createTableIfNeeded()
        try await DynamoDBRequestQuota(client: try AWSTestClients.dynamoDB(endpoint: endpoint), table: "paypulse-request-quotas", rule: QuotaRule(limit: 1))
            .createTableIfNeeded()
        var environment = baseEnvironment()
        environment["PAYPULSE_STORE"] = "aws"
        environment["AWS_REGION"] = AWSTestClients.region
        environment["AWS_ACCESS_KEY_ID"] = AWSTestClients.motoCredentials.accessKeyID
        environment["AWS_SECRET_ACCESS_KEY"] = AWSTestClients.motoCredentials.secretAccessKey
        environment["AWS_ENDPOINT_URL"] = endpoint
        let secrets = AWSSecretStore(client: try AWSTestClients.secretsManager(endpoint: endpoint))
        return ReplayBackend(environment: environment, secrets: secrets, grants: SecretsManagerGrantStore(secrets), users: users, cleanUp: {})
    }

    /// Like ``aws(on:)``, with the token sets in a DynamoDB table sealed under a fresh KMS key
    /// (`PAYPULSE_STORE=dynamodb`); the client-ID secret stays in Secrets Manager.
    static func dynamoDB(on server: MotoServer? = nil) async throws -> ReplayBackend {
        var backend = try await aws(on: server)
        guard let endpoint = backend.environment["AWS_ENDPOINT_URL"] else { throw ReplayError("no AWS endpoint") }
        let kms = KMSClient(client: try AWSTestClients.jsonClient(.kms, endpoint: endpoint))
        let keyID = try await kms.createKey(description: "paypulse replay")
        let grants = DynamoDBGrantStore(
            client: try AWSTestClients.dynamoDB(endpoint: endpoint), table: "paypulse-gmail-tokens",
            cipher: EnvelopeCipher(keys: DataKeyCache(service: kms, keyID: keyID)), due: .defaultRefresh
        )
        try await grants.createTableIfNeeded()
        backend.environment["PAYPULSE_STORE"] = "dynamodb"
        backend.environment["TOKENS_TABLE"] = "paypulse-gmail-tokens"
        backend.environment["PAYPULSE_KMS_KEY_ID"] = keyID
        backend.grants = grants
        return backend
    }
}
