import Foundation
import Logging
import PayPulseAWS
import PayPulseDomain
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// The fault matrix's cells for Secrets Manager's writes in two steps, the one store that
/// can show them (DynamoDB writes attributes with the value and deletes conditionally in
/// one call; the embedded store does both in one transaction): AWS's faults on the second
/// step, every attempt of it, through a ``FaultProxy`` in front of moto.
///
/// - Tag write refused: each change's `TagResource` denied, throttled, failing 503 or
///   its answer lost. The change stands and is answered as stored; by the second refresh
///   run the listing says what the value says, and the change's event is out, once.
/// - Describe or restore failing after a delete: a disconnect's `DeleteSecret` is held
///   while a reconnect is written, then the compare (`DescribeSecret`) or the restore
///   (`RestoreSecret`) fails. The next refresh run restores the reconnect, which reads
///   connected with its `Gmail Connected` on the bus.
@Suite("fault matrix: two-step writes on Secrets Manager x fault on the second step")
struct TwoStepFaultMatrixTests {
    enum Change: String, CaseIterable {
        case reconnect = "reconnect over revoked", disconnect, revoke = "refresh invalid_grant"

        var detailType: String {
            switch self {
            case .reconnect: "Gmail Reconnected"
            case .disconnect: "Gmail Disconnected"
            case .revoke: "Gmail Revoked"
            }
        }
    }

    static let tagFaults: [ProxyFault] = [.deny, .throttle, .status(503), .resetAfterForward]
    static let deleteFaults: [ProxyFault] = [.deny, .throttle, .status(503), .resetBeforeForward]
    static let bus = "paypulse-two-step-faults"

    @Test("tag write refused: the change stands, the listing converges and its event is out by the second run")
    func tagWriteRefused() async throws {
        let bench = try await Bench()
        defer { bench.proxy.stop() }
        for change in Change.allCases {
            var table: [String] = []
            for fault in Self.tagFaults {
                let user = UserID("ts-\(change.rawValue.prefix(4))-\(fault)".replacingOccurrences(of: " ", with: "-"))!
                let runs = try await bench.tagCell(change, fault: fault, user: user)
                table.append("\(fault): \(runs) run(s)")
            }
            print("two-step cells, tags refused, \(change.rawValue): " + table.joined(separator: ", "))
        }
    }

    @Test("describe or restore failing after a delete: the reconnect written meanwhile is restored by the next run, with its event",
          arguments: ["DescribeSecret", "RestoreSecret"])
    func deleteStepFailing(_ step: String) async throws {
        let bench = try await Bench()
        defer { bench.proxy.stop() }
        for fault in Self.deleteFaults {
            try await bench.deleteCell(step: step, fault: fault, user: UserID("td-\(step.prefix(4))-\(fault)".lowercased())!)
        }
    }

    /// A private moto with the bus, its rule and queue; the grants behind a fault proxy, the bus straight on moto.
    struct Bench {
        let moto: MotoServer
        let proxy: FaultProxy
        let plan = FaultPlan()
        let queue: LifecycleEventQueue
        /// Through the proxy: what the cell's faults hit.
        let grants: any GrantStore
        /// Straight on moto: the checks, and the writer racing a held call.
        let direct: any GrantStore
        let google = InMemoryGoogleOAuth()
        let publisher: LifecyclePublisher
        let quiet = Logger(label: "two-step-faults") { _ in SwiftLogNoOpLogHandler() }

        init() async throws {
            moto = try await MotoServer.launchPrivate()
            proxy = try FaultProxy(upstream: moto.endpoint, dialect: .aws, plan: plan)
            queue = try LifecycleEventQueue(endpoint: moto.endpoint, bus: TwoStepFaultMatrixTests.bus)
            let retries = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(10), maxDelay: .milliseconds(50))
            let proxied = try AWSTestClients.jsonClient(.secretsManager, endpoint: proxy.url, retryPolicy: retries, timeout: TestTime.scaled(.seconds(2)))
            grants = SecretsManagerGrantStore(AWSSecretStore(client: SecretsManagerClient(client: proxied)))
            direct = SecretsManagerGrantStore(AWSSecretStore(client: try AWSTestClients.secretsManager(endpoint: moto.endpoint)))
            let busClient = try AWSTestClients.jsonClient(.eventBridge, endpoint: moto.endpoint)
            // A request budget a busy moto's forwarding fits in: a disconnect whose publish ran
            // out of the default second would leave its delete to the sweep, and the held
            // delete these cells race would never come.
            publisher = LifecyclePublisher(
                bus: EventBridgeBus(client: busClient, bus: TwoStepFaultMatrixTests.bus), metrics: DiscardedMetrics(), logger: quiet,
                requestBudget: TestTime.scaled(.seconds(20))
            )
        }

        func vault(_ grants: any GrantStore) -> TokenVault { TokenVault(grants: grants, events: publisher) }

        /// The event types the queue holds for `user` (others' are dropped), with their ids.
        func drain(_ user: UserID) throws -> [(type: String, id: String)] {
            let (events, invalid) = try queue.drain()
            #expect(invalid.isEmpty, "\(invalid)")
            return events.compactMap { event in
                let detail = event["detail"] as? [String: Any]
                guard detail?["user_id"] as? String == user.rawValue else { return nil }
                return (event["detail-type"] as? String ?? "?", detail?["event_id"] as? String ?? "?")
            }
        }

        func tokens(_ refreshToken: String, expiresIn: Int = 3600) -> IncomingTokens {
            google.addGrant(refreshToken, subject: "3001", email: nil)
            return IncomingTokens(
                accessToken: "ya29.ts", refreshToken: refreshToken, expiresIn: expiresIn, scopes: [GmailScopes.readonly], subject: "3001",
                clientID: google.clientID
            )
        }

        /// One refresh run over `user` alone, through `grants`.
        func refreshRun(_ user: UserID, on grants: any GrantStore) async throws {
            let refresher = TokenRefresher(vault: vault(grants), google: google, clients: GoogleClients(ids: [google.clientID]), windowSeconds: 900)
            _ = try await RefreshJob(grants: grants, refresher: refresher, settings: RefreshSettings(), userPrefix: user.rawValue)
                .run(deadline: nil, logger: quiet)
        }

        /// Whether the listing tells what the value says (the tags describe it, an earlier
        /// expiry aside, which the listing implies from the write's date), and nothing is pending.
        func converged(_ user: UserID) async throws -> Bool {
            let state = try await direct.state(of: user.rawValue)
            guard !state.isScheduledForDeletion else { return try await vault(direct).current(of: user) == nil }
            guard let stored = try await vault(direct).current(of: user) else { return false }
            return TokenSetTags.stillDescribe(state.attributes, stored.tokenSet) && stored.tokenSet.lifecycle?.hasWork != true
        }

        /// One tag cell: the change with every `TagResource` under `fault`; how many runs it
        /// took to converge (at most two).
        func tagCell(_ change: Change, fault: ProxyFault, user: UserID) async throws -> Int {
            let label = "\(change.rawValue) / \(fault)", token = "1//ts-\(user.rawValue)"
            // The start, its events drained: a grant for a disconnect; a revoked one for a
            // reconnect; one Google refuses, due, for the run's revoke.
            _ = try await vault(direct).store(tokens(token, expiresIn: change == .disconnect ? 3600 : 60), for: user)
            if change != .disconnect { try await google.revoke(token: token) }
            if change == .reconnect {
                try await refreshRun(user, on: direct)
                #expect(try await vault(direct).connectionState(of: user) == .revoked, "\(label): starts revoked, its tags settled")
            }
            _ = try drain(user)

            plan.inject(fault, at: .operation("TagResource", occurrence: plan.count(of: "TagResource") + 1), persistent: true)
            let before = plan.count(of: "TagResource")
            switch change {
            case .reconnect:
                let stored = try? await vault(grants).store(tokens("1//ts-again-\(user.rawValue)"), for: user)
                #expect(stored != nil, "\(label): the value landed, the store says so")
            case .disconnect: _ = try await vault(grants).disconnect(user, recoveryWindowDays: 7)
            case .revoke: try await refreshRun(user, on: grants)
            }
            plan.clearFaults()
            #expect(plan.count(of: "TagResource") > before, "\(label): the change tagged")

            var delivered = try drain(user), runs = 0
            while try await !converged(user) || !delivered.contains(where: { $0.type == change.detailType }), runs < 2 {
                try await refreshRun(user, on: direct)
                runs += 1
                delivered += try drain(user)
            }
            #expect(try await converged(user), "\(label): the listing tells what the value says after \(runs) runs")
            let events = delivered.filter { $0.type == change.detailType }
            #expect(!events.isEmpty && Set(events.map(\.id)).count == 1, "\(label): its event, one event_id: \(delivered)")
            switch change {
            case .reconnect: #expect(try await vault(direct).connectionState(of: user) == .connected, "\(label)")
            case .disconnect: #expect(try await direct.state(of: user.rawValue).isScheduledForDeletion, "\(label): deleted once its event is out")
            case .revoke: #expect(try await vault(direct).connectionState(of: user) == .revoked, "\(label)")
            }
            return runs
        }

        /// One delete cell: the disconnect's `DeleteSecret` held while a reconnect is written
        /// (its event held by nothing: it goes out at once), then `step` fails under `fault`.
        func deleteCell(step: String, fault: ProxyFault, user: UserID) async throws {
            let label = "\(step) / \(fault)"
            _ = try await vault(direct).store(tokens("1//td-\(user.rawValue)"), for: user)
            _ = try drain(user)
            let gate = ProxyGate(limit: .seconds(20))
            plan.inject(.hold(gate), at: .operation("DeleteSecret", occurrence: plan.count(of: "DeleteSecret") + 1))
            async let disconnected = try? vault(grants).disconnect(user, recoveryWindowDays: 7)
            #expect(await gate.waitUntilHeld(), "\(label): the disconnect deletes")
            _ = try await vault(direct).store(tokens("1//td-again-\(user.rawValue)"), for: user)
            plan.inject(fault, at: .operation(step, occurrence: plan.count(of: step) + 1), persistent: true)
            gate.open()
            _ = await disconnected
            plan.clearFaults()
            #expect(plan.records.contains { $0.operation == step && $0.fault == fault }, "\(label): the step failed")
            #expect(try await direct.state(of: user.rawValue).isScheduledForDeletion, "\(label): the reconnect was deleted")

            try await refreshRun(user, on: direct)
            #expect(try await direct.state(of: user.rawValue).isScheduledForDeletion == false, "\(label): restored by the run")
            #expect(try await vault(direct).current(of: user)?.tokenSet.refreshToken == "1//td-again-\(user.rawValue)", "\(label)")
            #expect(try await vault(direct).connectionState(of: user) == .connected, "\(label)")
            let delivered = try drain(user)
            #expect(delivered.map(\.type) == ["Gmail Disconnected", "Gmail Connected"], "\(label): \(delivered)")
        }
    }
}
