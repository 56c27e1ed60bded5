import Foundation
import Logging
import PayPulseAWS
import PayPulseDomain
import PayPulseGoogle
import PayPulseHandlers
import PayPulsePorts
import PayPulseTestSupport
import PayPulseTransport

/// The peers of the fault matrix: a private moto_server and the fake Google, each behind a
/// ``FaultProxy`` sharing one ``FaultPlan``; the handlers' clients talk through the proxies
/// with short timeouts and small retry budgets, while the checker reads moto directly.
///
/// Grants live where ``store`` says: secrets in Secrets Manager, or items of a DynamoDB
/// table sealed under a moto KMS key (a table of its own per cell, see ``grants(cell:)``).
/// Either way every AWS call a handler makes (Secrets Manager, DynamoDB, KMS) goes through
/// the AWS proxy; users and the client-ID secret stay where they are on both.
///
/// Every clock is fixed, so a token set written in one cell is byte-comparable with the
/// fault-free reference written in another.
final class FaultBench: Sendable {
    /// One second per attempt on an idle machine, scaled by the load when the bench starts
    /// (``TestTime``): moto answers a fault-free call in milliseconds, but on a machine busy
    /// with parallel suites a second can pass, and a cell would then see a fault it did not
    /// plant. A stall costs one such time-out.
    static var attemptTimeout: Duration { TestTime.scaled(.seconds(1)) }
    /// Three attempts, whatever the wall clock: a cell's outcome turns on whether the retry
    /// recovers from its one fault, and a 20 s budget spent by a loaded machine's delays
    /// would end the retries before the recovery.
    static let awsRetries = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(10), maxDelay: .milliseconds(50), totalBudget: TestTime.unreachableBudget)
    static var googleRetries: RetryPolicy {
        RetryPolicy(
            maxAttempts: 3, baseDelay: .milliseconds(10), maxDelay: .milliseconds(50), totalBudget: TestTime.unreachableBudget,
            attemptTimeout: attemptTimeout
        )
    }
    static let clientIDSecret = "Google-OAuth-Client-ID-fault-matrix"
    static let usersTable = "paypulse-users"
    static let securityEventsTable = "paypulse-security-events"
    /// What the journal calls the fake Google's proxy.
    static let googleProxyName = "google"
    /// The KMS calls a DynamoDB grant store makes (through the AWS proxy, like DynamoDB's).
    static let kmsOperations: Set<String> = ["GenerateDataKey", "Decrypt"]

    let store: FaultStore
    let moto: MotoServer
    let google: FakeGoogleServer
    let plan: FaultPlan
    let awsProxy: FaultProxy
    let googleProxy: FaultProxy
    /// The fixed "now" of every handler, vault and JWT.
    let now: Date
    let logger: Logger

    /// Secrets and users through the proxy, as a handler sees them.
    let proxiedSecrets: AWSSecretStore
    let proxiedUsers: DynamoDBUserDirectory
    let proxiedGoogle: GoogleOAuthClient
    /// Secrets and users straight on moto, for seeding and for snapshots.
    let directSecrets: AWSSecretStore
    let directUsers: DynamoDBUserDirectory
    let guardian: RequestGuard
    let minter: DevelopmentTokenMinter
    /// The receiver's ledger of events acted on, through the proxy: on both stores a
    /// DynamoDB table, as a deployment has.
    let proxiedLedger: DynamoDBSecurityEventLedger
    /// Google's security events for the receiver's cells, their keys on the fake Google.
    let signer: SecurityEventSigner
    /// DynamoDB and KMS through the proxy and straight on moto, for DynamoDB grants.
    private let proxiedDynamoDB: DynamoDBClient
    private let directDynamoDB: DynamoDBClient
    private let proxiedKMS: KMSClient
    private let directKMS: KMSClient
    /// The moto KMS key DynamoDB grants are sealed under; `nil` on Secrets Manager.
    private let kmsKeyID: String?

    init(store: FaultStore) async throws {
        self.store = store
        let plan = FaultPlan()
        self.plan = plan
        let moto = try await MotoServer.launchPrivate()
        let google = try FakeGoogleServer()
        let awsProxy = try FaultProxy(upstream: moto.endpoint, dialect: .aws, plan: plan)
        let googleProxy = try FaultProxy(upstream: String(google.tokenEndpoint.dropLast("/token".count)), dialect: .google, plan: plan, name: Self.googleProxyName)
        self.moto = moto
        self.google = google
        self.awsProxy = awsProxy
        self.googleProxy = googleProxy
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        self.now = now

        // A transport of its own: no other suite's serialization, and nothing shared with them.
        let transport = CurlHTTPClient()
        let quiet = Logger(label: "fault-matrix") { _ in SwiftLogNoOpLogHandler() }
        logger = quiet
        proxiedSecrets = AWSSecretStore(client: SecretsManagerClient(client: try Self.client(.secretsManager, awsProxy.url, transport, quiet)))
        proxiedDynamoDB = DynamoDBClient(client: try Self.client(.dynamoDB, awsProxy.url, transport, quiet))
        proxiedKMS = KMSClient(client: try Self.client(.kms, awsProxy.url, transport, quiet))
        proxiedUsers = DynamoDBUserDirectory(client: proxiedDynamoDB, table: Self.usersTable)
        proxiedLedger = DynamoDBSecurityEventLedger(client: proxiedDynamoDB, table: Self.securityEventsTable)
        signer = SecurityEventSigner(google: google, audience: google.clientID, issuedAt: now)
        proxiedGoogle = GoogleOAuthClient(
            tokenEndpoint: googleProxy.url + "/token", revokeEndpoint: googleProxy.url + "/revoke", transport: transport,
            retry: Self.googleRetries, logger: quiet
        )
        let directSecrets = AWSSecretStore(client: SecretsManagerClient(client: try Self.client(.secretsManager, moto.endpoint, transport, quiet, timeout: .seconds(10))))
        let directDynamoDB = DynamoDBClient(client: try Self.client(.dynamoDB, moto.endpoint, transport, quiet, timeout: .seconds(10)))
        let directKMS = KMSClient(client: try Self.client(.kms, moto.endpoint, transport, quiet, timeout: .seconds(10)))
        let directUsers = DynamoDBUserDirectory(client: directDynamoDB, table: Self.usersTable)
        self.directSecrets = directSecrets
        self.directUsers = directUsers
        self.directDynamoDB = directDynamoDB
        self.directKMS = directKMS
        kmsKeyID = store == .dynamoDB ? try await directKMS.createKey(description: "paypulse fault matrix") : nil
        try await directUsers.createTableIfNeeded()
        try await DynamoDBSecurityEventLedger(client: directDynamoDB, table: Self.securityEventsTable).createTableIfNeeded()
        _ = try await directSecrets.createSecret(
            name: Self.clientIDSecret, value: #"{"client_id":"\#(google.clientID)"}"#, tags: [:], clientRequestToken: SecretVersionID.random().rawValue
        )

        let settings = try AuthSettings(key: Array(AuthSettings.developmentKey.utf8))
        guardian = RequestGuard(authenticator: Authenticator(settings: settings), now: { now })
        minter = try DevelopmentTokenMinter(settings: settings)
    }

    private static func client(
        _ service: AWSService, _ endpoint: String, _ transport: any HTTPTransport, _ logger: Logger, timeout: Duration = attemptTimeout
    ) throws -> AWSJSONClient {
        try AWSJSONClient(
            settings: .init(service: service, region: AWSTestClients.region, endpoint: endpoint, credentials: AWSTestClients.motoCredentials),
            transport: transport, retryPolicy: awsRetries.withAttemptTimeout(timeout), logger: logger
        )
    }

    func stop() {
        awsProxy.stop()
        googleProxy.stop()
        google.stop()
    }

    /// The grants of one cell, as its handler sees them (through the proxy) and as the
    /// checker and the seeding see them (straight on moto).
    struct Grants: Sendable {
        let proxied: any GrantStore
        let direct: any GrantStore
    }

    /// The grant stores of cell `cell`. On DynamoDB a fresh table per cell, so a listing
    /// scans only the cell's grants (a scan's calls grow with the table, which would make a
    /// cell's call sequence depend on the cells before it), and fresh data-key caches, so a
    /// handler starts cold as in a new process and its KMS calls are the reference's.
    func grants(cell: String) async throws -> Grants {
        guard let kmsKeyID else {
            return Grants(proxied: SecretsManagerGrantStore(proxiedSecrets), direct: SecretsManagerGrantStore(directSecrets))
        }
        let table = "grants-\(cell)"
        let fixed = now
        let direct = DynamoDBGrantStore(
            client: directDynamoDB, table: table, cipher: EnvelopeCipher(keys: DataKeyCache(service: directKMS, keyID: kmsKeyID)), due: .defaultRefresh,
            now: { fixed }
        )
        try await direct.createTableIfNeeded()
        let proxied = DynamoDBGrantStore(
            client: proxiedDynamoDB, table: table, cipher: EnvelopeCipher(keys: DataKeyCache(service: proxiedKMS, keyID: kmsKeyID)), due: .defaultRefresh,
            now: { fixed }
        )
        return Grants(proxied: proxied, direct: direct)
    }

    /// A vault on `grants` with the fixed clock.
    func vault(_ grants: any GrantStore) -> TokenVault {
        let fixed = now
        return TokenVault(grants: grants, now: { fixed })
    }

    /// What `watched` holds now, read straight on moto: a Secrets Manager grant or secret as
    /// its secret (version stages compared exactly), a DynamoDB grant through `grants`.
    func snapshot(_ watched: Watched, grants: any GrantStore) async throws -> StoreSnapshot {
        switch (watched, store) {
        case (.secret(let name), _): try await StoreSnapshot.read(secret: name, from: directSecrets)
        case (.grant(let user), .secretsManager): try await StoreSnapshot.read(secret: user.secretName, from: directSecrets)
        case (.grant(let user), .dynamoDB): try await StoreSnapshot.read(grant: user.rawValue, from: grants)
        }
    }

    /// `Authorization: Bearer <jwt>` for `user`.
    func authorization(for user: UserID) async throws -> [String: String] {
        let jwt = try minter.mint(subject: user.rawValue, name: nil, email: nil, issuedAt: now.addingTimeInterval(-60), expiresAt: now.addingTimeInterval(3600))
        return ["authorization": "Bearer \(jwt)"]
    }
}
