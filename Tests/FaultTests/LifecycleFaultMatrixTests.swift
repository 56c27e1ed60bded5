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
/// the put refused (`AccessDeniedException`), and the put landing but its answer lost or
/// timed out. In every cell the change stands as without the fault; the event reaches the
/// SQS queue a rule forwards to by the next refresh run at the latest (its sweep); and every
/// delivery of a change carries the one `event_id` it was recorded with.
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
    }

    /// No fault first: the reference.
    static let faults: [ProxyFault?] = [nil, .resetBeforeForward, .status(503), .deny, .resetAfterForward, .stallAfterForward]
    static let bus = "paypulse-lifecycle-faults"

    /// One bench, its cells one after the other: the proxy's faults are the bench's, and a
    /// moto of each change's own cost more than the cells (a cell is about a second).
    @Test("every change stands, its event arrives by the next run, with one event_id")
    func cells() async throws {
        let bench = try await Bench()
        defer { bench.proxy.stop() }
        for change in Change.allCases {
            let users = Self.faults.indices.map { UserID("lf-\(change.rawValue.prefix(4))-\($0)")! }
            for (user, fault) in zip(users, Self.faults) { try await bench.cell(change, fault: fault, user: user) }
            // What reached the queue, by cell (each its own user): the change's one event,
            // however often delivered, by the next run at the latest.
            let delivered = Dictionary(grouping: try bench.drain(), by: \.user)
            var table: [String] = []
            for (user, fault) in zip(users, Self.faults) {
                let label = "\(change.rawValue) / \(fault?.description ?? "none")", events = delivered[user.rawValue] ?? []
                #expect(!events.isEmpty && events.allSatisfy { $0.type == change.detailType }, "\(label): \(events)")
                #expect(Set(events.map(\.id)).count == 1, "\(label): one change, one event_id: \(events)")
                table.append("\(fault?.description ?? "none"): \(events.count)")
            }
            print("lifecycle fault cells, \(change.rawValue), deliveries: " + table.joined(separator: ", "))
        }
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

        init() async throws {
            moto = try await MotoServer.launchPrivate()
            proxy = try FaultProxy(upstream: moto.endpoint, dialect: .aws, plan: plan)
            queue = try LifecycleEventQueue(endpoint: moto.endpoint, bus: LifecycleFaultMatrixTests.bus)
            grants = SecretsManagerGrantStore(AWSSecretStore(client: try AWSTestClients.secretsManager(endpoint: moto.endpoint)))
            // Short attempts through the proxy, three of them, as the fault matrix's clients.
            let busClient = try AWSTestClients.jsonClient(
                .eventBridge, endpoint: proxy.url, retryPolicy: RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(10), maxDelay: .milliseconds(50)),
                timeout: TestTime.scaled(.seconds(1))
            )
            let publisher = LifecyclePublisher(bus: EventBridgeBus(client: busClient, bus: LifecycleFaultMatrixTests.bus), metrics: metrics, logger: quiet)
            let clock = clock
            vault = TokenVault(grants: grants, now: { clock.now }, events: publisher)
        }

        /// The events the queue holds, emptied, as `(detail-type, event_id, user_id)`.
        func drain() throws -> [(type: String, id: String, user: String)] {
            let (events, invalid) = try queue.drain()
            #expect(invalid.isEmpty, "\(invalid)")
            return events.map { event in
                let detail = event["detail"] as? [String: Any]
                return (event["detail-type"] as? String ?? "?", detail?["event_id"] as? String ?? "?", detail?["user_id"] as? String ?? "?")
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
            plan.clearFaults()
            let label = "\(change.rawValue) / \(fault?.description ?? "none")"

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

/// Counts the metrics lines' values by name.
final class CollectingMetrics: MetricsSink, @unchecked Sendable {
    private let lock = NSLock()
    private var totals: [String: Int] = [:]

    func emit(_ line: String) {
        guard let document = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return }
        lock.withLock {
            for (name, value) in document { if let number = value as? Int { totals[name, default: 0] += number } }
        }
    }

    func total(_ name: String) -> Int { lock.withLock { totals[name] ?? 0 } }
}
