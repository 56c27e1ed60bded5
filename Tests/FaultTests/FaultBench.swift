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
/// Every clock is fixed, so a token set written in one cell is byte-comparable with the
/// fault-free reference written in another.
final class FaultBench: Sendable {
    /// One second per attempt: moto answers in milliseconds, a stall costs one timeout.
    static let attemptTimeout: Duration = .seconds(1)
    static let awsRetries = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(10), maxDelay: .milliseconds(50), totalBudget: .seconds(20))
    static let googleRetries = RetryPolicy(
        maxAttempts: 3, baseDelay: .milliseconds(10), maxDelay: .milliseconds(50), totalBudget: .seconds(20), attemptTimeout: attemptTimeout
    )
    static let clientIDSecret = "Google-OAuth-Client-ID-fault-matrix"
    static let usersTable = "paypulse-users"
    /// What the journal calls the fake Google's proxy.
    static let googleProxyName = "google"

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

    init() async throws {
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
        proxiedUsers = DynamoDBUserDirectory(client: DynamoDBClient(client: try Self.client(.dynamoDB, awsProxy.url, transport, quiet)), table: Self.usersTable)
        proxiedGoogle = GoogleOAuthClient(
            tokenEndpoint: googleProxy.url + "/token", revokeEndpoint: googleProxy.url + "/revoke", transport: transport,
            retry: Self.googleRetries, logger: quiet
        )
        let directSecrets = AWSSecretStore(client: SecretsManagerClient(client: try Self.client(.secretsManager, moto.endpoint, transport, quiet, timeout: .seconds(10))))
        let directUsers = DynamoDBUserDirectory(client: DynamoDBClient(client: try Self.client(.dynamoDB, moto.endpoint, transport, quiet, timeout: .seconds(10))), table: Self.usersTable)
        self.directSecrets = directSecrets
        self.directUsers = directUsers
        try await directUsers.createTableIfNeeded()
        _ = try await directSecrets.createSecret(
            name: Self.clientIDSecret, value: #"{"client_id":"\#(google.clientID)"}"#, tags: [:], clientRequestToken: SecretVersionID.random().rawValue
        )

        let settings = try AuthSettings(key: Array(AuthSettings.developmentKey.utf8))
        guardian = RequestGuard(authenticator: try Authenticator(settings: settings), now: { now })
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

    /// A vault on `secrets` with the fixed clock.
    func vault(_ secrets: any SecretStore) -> TokenVault {
        let fixed = now
        return TokenVault(secrets: secrets, now: { fixed })
    }

    /// `Authorization: Bearer <jwt>` for `user`.
    func authorization(for user: UserID) async throws -> [String: String] {
        let jwt = try minter.mint(subject: user.rawValue, name: nil, email: nil, issuedAt: now.addingTimeInterval(-60), expiresAt: now.addingTimeInterval(3600))
        return ["authorization": "Bearer \(jwt)"]
    }
}
