import Foundation
import Logging
import PayPulseAWS
import PayPulseDomain
import PayPulseEmbedded
import PayPulsePorts
import PayPulseTestSupport

/// One store the soak runs against: the environment that points every process at it, and
/// the harness's own view of it for seeding and for reading the final state.
struct SoakBackend {
    let name: String
    let environment: [String: String]
    /// What the security-events processes get: on moto, a listing that lags (see
    /// ``AWSFaults``); on the embedded store ``environment``.
    let receiverEnvironment: [String: String]
    /// Whether the receiver's listing may not show a grant yet: the checker then owes an
    /// event only once a refresh run that catches up on Google's word ran after it.
    var listingLags: Bool { faults != nil }
    /// Where the configuration secrets (the client ID) live.
    let secrets: any SecretStore
    /// Where the token sets live, as the functions reach them: `secrets` through the Secrets
    /// Manager mapping, or the DynamoDB token table.
    let grants: any GrantStore
    let users: any UserDirectory
    /// Where the functions publish lifecycle events, for the harness's last sweep.
    let publisher: LifecyclePublisher
    /// Every lifecycle event delivered (moto's bus, through a rule to SQS; the embedded
    /// store's table), and how any breaks the schema.
    let events: @Sendable () async throws -> (events: [[String: Any]], invalid: [String])
    /// Keeps a private server alive, removes a state directory.
    let cleanUp: () -> Void
    /// The proxies that play AWS's lag and writes in flight, on moto; `nil` on the embedded store.
    var faults: AWSFaults? = nil

    private static let quiet = Logger(label: "soak") { _ in SwiftLogNoOpLogHandler() }

    /// The variables every process gets, and nothing inherited: the fake Google, and a
    /// refresh window of an hour so every set is due (stored ones expire in 1–10 minutes,
    /// refreshed ones in 3599 s), with no write pacing to slow the runs.
    private static func baseEnvironment(google: FakeGoogleServer) -> [String: String] {
        [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": NSTemporaryDirectory(), "LOG_LEVEL": "info",
            "GOOGLE_TOKEN_ENDPOINT": google.tokenEndpoint, "GOOGLE_REVOKE_ENDPOINT": google.revokeEndpoint,
            "GOOGLE_RISC_CONFIGURATION_URL": google.riscConfigurationURL,
            "REFRESH_WINDOW_SECONDS": "3600", "REFRESH_MAX_WRITES_PER_SECOND": "10000", "REFRESH_CONCURRENCY": "8",
            // The soak is about races: its users post far more often than a person does, each
            // post still counted (StoreTokensStormTests holds the limit itself).
            "STORE_TOKENS_PER_MINUTE": "1000",
        ]
    }

    /// One SQLite file in a fresh state directory that every process opens.
    static func embedded(google: FakeGoogleServer) throws -> SoakBackend {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("soak-state-\(UUID().uuidString)").path
        let database = try EmbeddedDatabase(stateDirectory: directory, logger: quiet)
        var environment = baseEnvironment(google: google)
        environment["PAYPULSE_STORE"] = "embedded"
        environment["PAYPULSE_STATE_DIR"] = directory
        let secrets = EmbeddedSecretStore(database: database, logger: quiet)
        let table = EmbeddedLifecycleEvents(database: database)
        return SoakBackend(
            name: "embedded", environment: environment, receiverEnvironment: environment, secrets: secrets, grants: SecretsManagerGrantStore(secrets),
            users: EmbeddedUserDirectory(database: database, logger: quiet), publisher: publisher(table),
            events: {
                // As EventBridge would deliver them: source, detail type, the detail as an object.
                let events: [[String: Any]] = try await table.recent(limit: 1_000_000).map { row in
                    ["source": LifecycleEvent.source, "detail-type": row.detailType, "detail": (try? JSONSerialization.jsonObject(with: Data(row.detail.utf8))) ?? row.detail]
                }
                return (events, try LifecycleEventQueue.invalid(events))
            },
            cleanUp: { try? FileManager.default.removeItem(atPath: directory) }
        )
    }

    /// Secrets Manager and DynamoDB on a moto_server of the soak's own (moto is shared by
    /// no other test, so nobody else's requests race ours there).
    static func moto(google: FakeGoogleServer) async throws -> SoakBackend {
        let (server, users, queue) = try await privateMoto()
        let faults = try AWSFaults(moto: server, listing: "ListSecrets", writes: ["CreateSecret", "PutSecretValue", "TagResource"])
        var environment = awsEnvironment(google: google, endpoint: faults.held.url, bus: queue.bus)
        environment["PAYPULSE_STORE"] = "aws"
        let secrets = AWSSecretStore(client: try AWSTestClients.secretsManager(endpoint: server.endpoint))
        return SoakBackend(
            name: "moto", environment: environment, receiverEnvironment: faults.receiving(environment), secrets: secrets,
            grants: SecretsManagerGrantStore(secrets), users: users, publisher: try publisher(on: queue), events: { try queue.drain() },
            cleanUp: { withExtendedLifetime(server) {} }, faults: faults
        )
    }

    /// What AWS may do to the functions' calls, played by two proxies in front of moto: every
    /// fourth write of each kind held for a moment (in flight while other processes act), and,
    /// for the security-events processes only, every second listing empty (a grant the
    /// listing does not show yet: ListSecrets lags up to five minutes, an index is eventually
    /// consistent). The refresh runs and the harness see the listing as it is, so the run's
    /// catch-up on Google's word finds what the receiver missed.
    final class AWSFaults: Sendable {
        /// Every function's way to moto.
        let held: FaultProxy
        /// The receiver's way: through ``held``, its listings lagging.
        let lagging: FaultProxy

        init(moto: MotoServer, listing: String, writes: [String]) throws {
            let heldPlan = FaultPlan()
            for write in writes { heldPlan.inject(.latency(.milliseconds(300)), at: .every(write, period: 4), persistent: true) }
            held = try FaultProxy(upstream: moto.endpoint, dialect: .aws, plan: heldPlan, name: "held")
            let laggingPlan = FaultPlan()
            laggingPlan.inject(.emptyListing, at: .every(listing, period: 2), persistent: true)
            lagging = try FaultProxy(upstream: held.url, dialect: .aws, plan: laggingPlan, name: "lagging")
        }

        /// How many listings the receiver was shown empty, and how many writes were held.
        var played: (hidden: Int, held: Int) {
            (lagging.plan.records.filter { $0.fault == .emptyListing }.count, held.plan.records.filter { $0.fault != nil }.count)
        }

        /// `environment` with the receiver's way to moto.
        func receiving(_ environment: [String: String]) -> [String: String] {
            environment.merging(["AWS_ENDPOINT_URL": lagging.url]) { $1 }
        }

        deinit {
            lagging.stop()
            held.stop()
        }
    }

    /// The token sets in a DynamoDB table sealed under a KMS key, both on a moto_server of
    /// the soak's own (`PAYPULSE_STORE=dynamodb`); users and the client-ID secret as with
    /// ``moto(google:)``.
    static func dynamoDB(google: FakeGoogleServer) async throws -> SoakBackend {
        let (server, users, queue) = try await privateMoto()
        let kms = KMSClient(client: try AWSTestClients.jsonClient(.kms, endpoint: server.endpoint))
        let keyID = try await kms.createKey(description: "paypulse soak")
        let grants = DynamoDBGrantStore(
            client: try AWSTestClients.dynamoDB(endpoint: server.endpoint), table: TokenTable.name,
            cipher: EnvelopeCipher(keys: DataKeyCache(service: kms, keyID: keyID)), due: .defaultRefresh
        )
        try await grants.createTableIfNeeded()
        let faults = try AWSFaults(moto: server, listing: "Query", writes: ["PutItem", "UpdateItem"])
        var environment = awsEnvironment(google: google, endpoint: faults.held.url, bus: queue.bus)
        environment["PAYPULSE_STORE"] = "dynamodb"
        environment["TOKENS_TABLE"] = TokenTable.name
        environment["PAYPULSE_KMS_KEY_ID"] = keyID
        return SoakBackend(
            name: "dynamodb", environment: environment, receiverEnvironment: faults.receiving(environment),
            secrets: AWSSecretStore(client: try AWSTestClients.secretsManager(endpoint: server.endpoint)), grants: grants, users: users,
            publisher: try publisher(on: queue), events: { try queue.drain() }, cleanUp: { withExtendedLifetime(server) {} }, faults: faults
        )
    }

    /// The token table's name on the DynamoDB backend (the functions' default).
    private enum TokenTable { static let name = "paypulse-gmail-tokens" }

    /// A moto_server of the soak's own (shared by no other test, so nobody else's requests
    /// race ours there) with the users table, the security events' ledger and the request
    /// quotas (each under the functions' default name), and the lifecycle events' bus with a
    /// rule forwarding them to a queue.
    private static func privateMoto() async throws -> (MotoServer, DynamoDBUserDirectory, LifecycleEventQueue) {
        let server = try await MotoServer.launchPrivate()
        let dynamoDB = try AWSTestClients.dynamoDB(endpoint: server.endpoint)
        let users = DynamoDBUserDirectory(client: dynamoDB, table: "paypulse-users")
        try await users.createTableIfNeeded()
        try await DynamoDBSecurityEventLedger(client: dynamoDB, table: "paypulse-security-events").createTableIfNeeded()
        try await DynamoDBRequestQuota(client: dynamoDB, table: "paypulse-request-quotas", rule: QuotaRule(limit: 1)).createTableIfNeeded()
        return (server, users, try LifecycleEventQueue(endpoint: server.endpoint, bus: "paypulse-soak"))
    }

    /// The harness's publisher onto `queue`'s bus, as the functions' own.
    private static func publisher(on queue: LifecycleEventQueue) throws -> LifecyclePublisher {
        publisher(EventBridgeBus(client: try AWSTestClients.jsonClient(.eventBridge, endpoint: queue.endpoint), bus: queue.bus))
    }

    private static func publisher(_ bus: any LifecycleEventBus) -> LifecyclePublisher {
        LifecyclePublisher(bus: bus, metrics: DiscardedMetrics(), logger: quiet)
    }

    /// The base environment with moto's endpoint, test credentials and the lifecycle events' bus.
    private static func awsEnvironment(google: FakeGoogleServer, endpoint: String, bus: String) -> [String: String] {
        var environment = baseEnvironment(google: google)
        environment["PAYPULSE_EVENT_BUS"] = bus
        environment["AWS_REGION"] = AWSTestClients.region
        environment["AWS_ACCESS_KEY_ID"] = AWSTestClients.motoCredentials.accessKeyID
        environment["AWS_SECRET_ACCESS_KEY"] = AWSTestClients.motoCredentials.secretAccessKey
        environment["AWS_ENDPOINT_URL"] = endpoint
        return environment
    }

    /// The user's grant as it is now (attributes read first, then the value; a deletion in
    /// between reads as absent).
    func finalState(of userID: String) async throws -> FinalState {
        let state: GrantState
        do {
            state = try await grants.state(of: userID)
        } catch let error as StoreError where error == .notFound {
            return .absent
        }
        if state.isScheduledForDeletion { return .absent }
        do {
            let value = try await grants.read(userID)
            return .present(try GmailTokenSet.decode(value.value), tags: state.attributes)
        } catch let error as StoreError where error == .notFound || error == .scheduledForDeletion {
            return .absent
        }
    }

    /// If the user's grant is scheduled for deletion: a reconnect through the product's
    /// own ``TokenVault/store(_:for:)`` that restores it and then loses every
    /// compare-and-swap (409), and the grant as that leaves it. Also whether the deleted
    /// grant's attributes said connected before (an overtaken writer's tags that landed after
    /// the disconnect's mark, which the reconnect must repair). `nil` when nothing was deleted.
    func failedReconnect(_ userID: String) async throws -> (state: FinalState, deletedTaggedConnected: Bool)? {
        // A read error fails the check (it must not skip this user's reconnect); only "no
        // grant at all" means nothing to reconnect.
        let state: GrantState
        do {
            state = try await grants.state(of: userID)
        } catch let error as StoreError where error == .notFound {
            return nil
        }
        guard state.isScheduledForDeletion, let user = UserID(userID) else { return nil }
        do {
            _ = try await TokenVault(grants: LosingWritesGrantStore(inner: grants)).store(IncomingTokens(accessToken: "ya29.soak-probe"), for: user)
            throw SoakError("a reconnect whose every write loses succeeded for \(userID)")
        } catch let error as StoreError where error == .conflict {
            return (try await finalState(of: userID), FinalState.readsConnected(tags: state.attributes))
        }
    }
}
