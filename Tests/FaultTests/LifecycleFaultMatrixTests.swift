import Foundation
import Logging
import PayPulseAWS
import PayPulseDomain
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// The lifecycle events' cells of the fault matrix: each change of a grant, with
/// `PutEvents` failing at each point on its way to moto's EventBridge (a ``FaultProxy`` in
/// front of the bus alone, every attempt of the invocation): before the put (reset, 503),
/// the put refused (`AccessDeniedException`), the put landing but its answer lost or timed
/// out, and the bus hanging (no answer ever: the request gives up within its short budget
/// and answers). In every cell the change stands as without the fault; the event reaches
/// the SQS queue a rule forwards to by the next refresh run at the latest (its sweep); and
/// every delivery of a change carries the one `event_id` it was recorded with. Then the bus
/// refusing for long: many changes of one grant, its outbox within its bound, and the latest
/// state in order once the bus takes events again. On Secrets Manager and on DynamoDB with
/// KMS (the embedded store's bus is its own file, which neither hangs nor refuses).
@Suite("fault matrix: lifecycle change x PutEvents fault")
struct LifecycleFaultMatrixTests {
    enum Change: String, CaseIterable {
        case connect, disconnect, invalidGrant = "refresh invalid_grant", tokensRevoked = "tokens-revoked", purged = "account-purged"

        var detailType: String {
            switch self {
            case .connect: "Gmail Connected"
            case .disconnect: "Gmail Disconnected"
            case .invalidGrant, .tokensRevoked: "Gmail Revoked"
            case .purged: "Gmail Purged"
            }
        }

        /// Whether the change deletes the grant once its event is out.
        var deletes: Bool { self == .disconnect || self == .purged }
        /// Whether a request makes the change (the refresh run makes the others).
        var isRequest: Bool { self != .invalidGrant }
    }

    /// No fault first: the reference. `stall` is the bus hanging.
    static let faults: [ProxyFault?] = [nil, .resetBeforeForward, .status(503), .deny, .resetAfterForward, .stallAfterForward, .stall]
    static let bus = "paypulse-lifecycle-faults"
    /// The publisher's request budget on the bench (moto on a busy machine can take more than
    /// the product's second to forward an event to its queue, and a cell without a fault
    /// expects the event out at once), and how long a request may take with the bus hanging:
    /// its one attempt, and the rest of the request.
    static let requestBudget: Duration = TestTime.scaled(.seconds(2))
    static let hangingRequestLimit: Duration = requestBudget + TestTime.scaled(.seconds(2))

    /// One bench per store, its cells one after the other: the proxy's faults are the
    /// bench's, and a moto of each change's own cost more than the cells (a cell is about a second).
    @Test("every change stands, its event arrives by the next run, with one event_id", arguments: FaultStore.allCases)
    func cells(_ store: FaultStore) async throws {
        let bench = try await Bench(store)
        defer { bench.proxy.stop() }
        for change in Change.allCases {
            let users = Self.faults.indices.map { UserID("lf-\(change.rawValue.prefix(4))-\($0)")! }
            for (user, fault) in zip(users, Self.faults) { try await bench.cell(change, fault: fault, user: user) }
            // What reached the queue, by cell (each its own user): the change's one event,
            // however often delivered, by the next run at the latest.
            let delivered = Dictionary(grouping: try bench.drain(), by: \.user)
            var table: [String] = []
            for (user, fault) in zip(users, Self.faults) {
                let label = "\(store) \(change.rawValue) / \(fault?.description ?? "none")", events = delivered[user.rawValue] ?? []
                #expect(!events.isEmpty && events.allSatisfy { $0.type == change.detailType }, "\(label): \(events)")
                #expect(Set(events.map(\.id)).count == 1, "\(label): one change, one event_id: \(events)")
                table.append("\(fault?.description ?? "none"): \(events.count)")
            }
            print("lifecycle fault cells on \(store), \(change.rawValue), deliveries: " + table.joined(separator: ", "))
        }
    }

    /// The bus refuses (a wrong policy) for as long as one user reconnects 60 times, three
    /// times the outbox's bound: every change is stored, the grant stays writable and its
    /// document small, the dropped events are counted, and once the bus takes events again
    /// the next run delivers the newest, in order, the last one the grant's latest state.
    @Test("the bus refusing for long: every change stored, the outbox within its bound, the latest state in order after", arguments: FaultStore.allCases)
    func refusingForLong(_ store: FaultStore) async throws {
        let bench = try await Bench(store)
        defer { bench.proxy.stop() }
        let user = UserID("lf-refusing")!, subject = "2\(UInt64.random(in: 100_000_000...999_999_999))"
        bench.plan.inject(.deny, at: .operation("PutEvents", occurrence: 1), persistent: true)
        var largest = 0
        for index in 0..<60 {
            let token = "1//lf-refusing-\(index)"
            bench.google.addGrant(token, subject: subject, email: nil)
            let incoming = IncomingTokens(accessToken: "ya29.lf", refreshToken: token, expiresIn: 3600, scopes: [GmailScopes.readonly], subject: subject, clientID: bench.google.clientID)
            let result = try await bench.vault.store(incoming, for: user)
            #expect(result.tokenSet.refreshToken == token, "change \(index) stored")
            let pending = try #require(try await bench.vault.current(of: user)?.tokenSet.lifecycle?.pending)
            #expect(pending.count <= LifecyclePublisher.defaultMaxPending)
            largest = max(largest, try await bench.documentSize(of: user))
        }
        #expect(bench.metrics.total("Dropped") == 60 - LifecyclePublisher.defaultMaxPending, "each dropped event counted once")
        #expect(bench.metrics.total("Refused") > 0)
        print("lifecycle fault, bus refusing for long on \(store): 60 changes, largest document \(largest) bytes")
        #expect(largest < 16_384, "the document stays far within Secrets Manager's 65,536 bytes: \(largest)")
        let latest = try #require(try await bench.vault.current(of: user)?.tokenSet.lifecycle?.pending.last)
        bench.plan.clearFaults()
        // The next run publishes them; on a loaded machine one of its puts may outlast the
        // bus client's time-out (landing all the same), which the run after puts again under
        // the same event_ids: at least once, each id once for a consumer.
        var delivered: [(type: String, id: String, user: String, sequence: Int)] = []
        for _ in 0..<2 {
            try await bench.nextRun(user)
            delivered += try bench.drain().filter { $0.user == user.rawValue }
            if try await !TokenSetTags.hasPendingEvents(bench.grants.state(of: user.rawValue).attributes) { break }
        }
        var byID: [String: Int] = [:]
        for event in delivered { byID[event.id] = event.sequence }
        #expect(byID.count == LifecyclePublisher.defaultMaxPending, "the newest, each id once: \(byID.count) of \(delivered.count)")
        // EventBridge delivers in no order: a consumer orders by sequence, each change its own.
        #expect(Set(byID.values).count == byID.count)
        #expect(delivered.max { $0.sequence < $1.sequence }?.id == latest.eventID, "the latest state arrives")
        #expect(try await TokenSetTags.hasPendingEvents(bench.grants.state(of: user.rawValue).attributes) == false, "nothing left pending")
    }

    /// A private moto with the bus, its rule and queue; the bus behind a fault proxy; the grants straight on moto.
    struct Bench {
        let moto: MotoServer
        let proxy: FaultProxy
        let plan = FaultPlan()
        let queue: LifecycleEventQueue
        let grants: any GrantStore
        let google = InMemoryGoogleOAuth()
        let metrics = CollectingMetrics()
        /// The vault's clock: the next run comes later than a sweep's deletion waits.
        let clock = MovingClock()
        let vault: TokenVault
        let quiet = Logger(label: "lifecycle-faults") { _ in SwiftLogNoOpLogHandler() }

        init(_ store: FaultStore) async throws {
            moto = try await MotoServer.launchPrivate()
            proxy = try FaultProxy(upstream: moto.endpoint, dialect: .aws, plan: plan)
            queue = try LifecycleEventQueue(endpoint: moto.endpoint, bus: LifecycleFaultMatrixTests.bus)
            switch store {
            case .secretsManager:
                grants = SecretsManagerGrantStore(AWSSecretStore(client: try AWSTestClients.secretsManager(endpoint: moto.endpoint)))
            case .dynamoDB:
                let kms = KMSClient(client: try AWSTestClients.jsonClient(.kms, endpoint: moto.endpoint))
                let table = DynamoDBGrantStore(
                    client: try AWSTestClients.dynamoDB(endpoint: moto.endpoint), table: "lifecycle-faults",
                    cipher: EnvelopeCipher(keys: DataKeyCache(service: kms, keyID: try await kms.createKey(description: "lifecycle faults"))), due: .defaultRefresh
                )
                try await table.createTableIfNeeded()
                grants = table
            }
            // Three attempts through the proxy with short waits, as the fault matrix's clients;
            // each as long as moto may take to forward ten events to the queue on a busy
            // machine (a put that times out lands all the same, and is put again). The
            // request's budget, not this, bounds what a request waits.
            let busClient = try AWSTestClients.jsonClient(
                .eventBridge, endpoint: proxy.url, retryPolicy: RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(10), maxDelay: .milliseconds(50)),
                timeout: TestTime.scaled(.seconds(10))
            )
            let publisher = LifecyclePublisher(
                bus: EventBridgeBus(client: busClient, bus: LifecycleFaultMatrixTests.bus), metrics: metrics, logger: quiet,
                requestBudget: LifecycleFaultMatrixTests.requestBudget, sweepBudget: TestTime.scaled(.seconds(30))
            )
            let clock = clock
            vault = TokenVault(grants: grants, now: { clock.now }, events: publisher)
        }

        /// The bytes of `user`'s stored document (its value as the store holds it).
        func documentSize(of user: UserID) async throws -> Int {
            try await grants.read(user.rawValue).value.utf8.count
        }

        /// The events the queue holds, emptied, as `(detail-type, event_id, user_id, sequence)`.
        func drain() throws -> [(type: String, id: String, user: String, sequence: Int)] {
            let (events, invalid) = try queue.drain()
            #expect(invalid.isEmpty, "\(invalid)")
            return events.map { event in
                let detail = event["detail"] as? [String: Any]
                return (
                    event["detail-type"] as? String ?? "?", detail?["event_id"] as? String ?? "?", detail?["user_id"] as? String ?? "?",
                    detail?["sequence"] as? Int ?? -1
                )
            }
        }

        /// The refresh run over `user` alone, later: its sweep publishes what a failed put left.
        func nextRun(_ user: UserID) async throws {
            clock.advance(by: 60)
            let clock = clock
            let refresher = TokenRefresher(
                vault: vault, google: google, clients: GoogleClients(ids: [google.clientID]), windowSeconds: 900, now: { clock.now }
            )
            _ = try await RefreshJob(grants: grants, refresher: refresher, settings: RefreshSettings(), userPrefix: user.rawValue, now: { clock.now })
                .run(deadline: nil, logger: quiet)
        }

        /// One cell: the state it starts from (no fault), the change under `fault`, then the
        /// next run; what reached the queue is read for all the change's cells at once.
        func cell(_ change: Change, fault: ProxyFault?, user: UserID) async throws {
            let subject = "2\(UInt64.random(in: 100_000_000...999_999_999))", token = "1//lf-\(user.rawValue)"
            google.addGrant(token, subject: subject, email: nil)
            let incoming = IncomingTokens(
                accessToken: "ya29.lf", refreshToken: token, expiresIn: change == .invalidGrant ? 60 : 3600, scopes: [GmailScopes.readonly],
                subject: subject, clientID: google.clientID
            )
            // The start, stored with no event of its own: the queue then holds only the cell's.
            if change != .connect { _ = try await TokenVault(grants: grants, now: { clock.now }).store(incoming, for: user) }
            if change == .invalidGrant { try await google.revoke(token: token) }
            let refusedBefore = metrics.total("Refused")
            if let fault { plan.inject(fault, at: .operation("PutEvents", occurrence: 1), persistent: true) }
            let started = ContinuousClock.now
            switch change {
            case .connect: _ = try await vault.store(incoming, for: user)
            case .disconnect: try await vault.disconnect(user, recoveryWindowDays: 7)
            case .invalidGrant: try await nextRun(user)
            case .tokensRevoked, .purged:
                let event = SecurityEvent(
                    type: change == .purged ? .accountPurged : .tokensRevoked, subject: .googleAccount(GoogleAccountSubject(subject: subject, issuer: nil, email: nil))
                )
                let clock = clock
                _ = try await GoogleAccountEvents(vault: vault, recoveryWindowDays: 7, now: { clock.now }).apply(event, issuedAt: clock.now, logger: quiet)
            }
            let took = ContinuousClock.now - started
            plan.clearFaults()
            let label = "\(change.rawValue) / \(fault?.description ?? "none")"
            // A hanging bus holds no request longer than its short attempt.
            if fault == .stall, change.isRequest {
                #expect(took < LifecycleFaultMatrixTests.hangingRequestLimit, "\(label): the request waited \(took) for a hanging bus")
            }

            // The change stands, whatever the bus did.
            let stored = try await vault.current(of: user)?.tokenSet
            let state = try await grants.state(of: user.rawValue)
            switch change {
            case .connect: #expect(stored?.status == .active, "\(label): connected")
            case .invalidGrant, .tokensRevoked: #expect(stored?.status == .revoked, "\(label): revoked")
            case .disconnect, .purged:
                #expect(state.isScheduledForDeletion || stored?.status == .revoked, "\(label): revoked, deleted once the event is out")
                if fault == nil { #expect(state.isScheduledForDeletion, "\(label): deleted at once") }
            }
            if fault != nil { #expect(TokenSetTags.hasPendingEvents(state.attributes), "\(label): the event waits in the grant") }
            if fault == .deny { #expect(metrics.total("Refused") > refusedBefore, "\(label): a refusal is counted for the alarm") }
            try await nextRun(user)
            if change.deletes {
                #expect(try await grants.state(of: user.rawValue).isScheduledForDeletion, "\(label): deleted after its event")
            } else {
                #expect(try await TokenSetTags.hasPendingEvents(grants.state(of: user.rawValue).attributes) == false, "\(label): nothing left pending")
            }
        }
    }
}
