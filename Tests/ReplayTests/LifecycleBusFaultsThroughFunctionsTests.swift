import Foundation
import PayPulseDomain
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// The lifecycle events' bus failing for long, through the built functions on moto, every
/// AWS call behind a ``FaultProxy`` that plays the bus's fault on `PutEvents` alone: a bus
/// that hangs (no answer until the test lets it through) holds no request past its short
/// attempt, and a bus that refuses every put (a wrong policy, a deleted bus) never makes a
/// grant too large to write. Afterwards the refresh run's sweep delivers what waited. On
/// Secrets Manager and on DynamoDB with KMS. (The same faults in process, on every store:
/// `LifecycleFaultMatrixTests`.)
@Suite("Lifecycle events through the built functions: the bus hanging, the bus refusing for long", .serialized)
struct LifecycleBusFaultsThroughFunctionsTests {
    /// Its own moto: the event replay suite resets the shared one between its cases.
    private static let moto = Task { try await MotoServer.launchPrivate() }
    static let stores = ["aws", "dynamodb"]
    static let client = "bus-faults-ios-client.apps.googleusercontent.com"
    static let bus = "paypulse-lifecycle-bus-faults"

    /// A store on moto, its bus and queue, every function's AWS calls through the proxy, and Google.
    struct World {
        let backend: ReplayBackend
        let google: FakeGoogleServer
        let plan = FaultPlan()
        let proxy: FaultProxy
        let queue: LifecycleEventQueue
        let environment: [String: String]
        let minter: DevelopmentTokenMinter
        let run = UUID().uuidString.prefix(8).lowercased()

        init(_ store: String) async throws {
            let server = try await LifecycleBusFaultsThroughFunctionsTests.moto.value
            backend = store == "aws" ? try await ReplayBackend.aws(on: server) : try await ReplayBackend.dynamoDB(on: server)
            google = try FakeGoogleServer(clientIDs: [LifecycleBusFaultsThroughFunctionsTests.client])
            _ = try await backend.secrets.createSecret(
                name: "Google-OAuth-Client-ID", value: LifecycleBusFaultsThroughFunctionsTests.client, tags: [:],
                clientRequestToken: SecretVersionID.random().rawValue
            )
            queue = try LifecycleEventQueue(endpoint: server.endpoint, bus: LifecycleBusFaultsThroughFunctionsTests.bus)
            proxy = try FaultProxy(upstream: server.endpoint, dialect: .aws, plan: plan)
            var environment = backend.environment
            environment["AWS_ENDPOINT_URL"] = proxy.url
            environment["GOOGLE_TOKEN_ENDPOINT"] = google.tokenEndpoint
            environment["GOOGLE_REVOKE_ENDPOINT"] = google.revokeEndpoint
            environment["GOOGLE_RISC_CONFIGURATION_URL"] = google.riscConfigurationURL
            environment["PAYPULSE_EVENT_BUS"] = LifecycleBusFaultsThroughFunctionsTests.bus
            // One user posts far more often than an app does: the per-user allowance is not under test.
            environment["STORE_TOKENS_PER_MINUTE"] = "1000"
            self.environment = environment
            minter = try DevelopmentTokenMinter(settings: try AuthSettings(key: Array(AuthSettings.developmentKey.utf8)))
        }

        func stop() {
            proxy.stop()
            google.stop()
            backend.cleanUp()
        }

        /// A user of this run.
        func user(_ name: String) -> String { "bus-\(run)-\(name)" }

        /// The app posts `refreshToken` of Google account `subject` for `user`, once Google knows
        /// the grant: store-tokens' status code.
        func connect(_ user: String, _ refreshToken: String, subject: String) async throws -> Int {
            google.addGrant(refreshToken: refreshToken, scope: FakeGoogleGrantSpec.signInWithGmailScope, account: FakeGoogleAccount(subject: subject))
            let body: [String: Any] = [
                "access_token": "ya29.app-\(refreshToken)", "refresh_token": refreshToken, "expires_in": 3600,
                "scope": FakeGoogleGrantSpec.signInWithGmailScope.split(separator: " ").map(String.init), "token_type": "Bearer",
            ]
            let jwt = try minter.mint(subject: user, name: nil, email: nil, issuedAt: Date().addingTimeInterval(-60), expiresAt: Date().addingTimeInterval(3600))
            let result = try await FunctionProcess.run("store-tokens", event: FunctionEvents.storeTokens(body, jwt: jwt), environment: environment)
            #expect(result.status == 0, "store-tokens: \(result.stderr.suffix(600))")
            let answer = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [String: Any]
            return answer?["statusCode"] as? Int ?? -1
        }

        func refreshRun() async throws {
            let result = try await FunctionProcess.run("token-refresh", event: FunctionEvents.tokenRefresh(), environment: environment)
            #expect(result.status == 0, "token-refresh: \(result.stderr.suffix(600))")
        }

        /// `user`'s stored document, read past the proxy.
        func stored(_ user: String) async throws -> (bytes: Int, outbox: LifecycleOutbox?) {
            let value = try await backend.grants.read(user)
            return (value.value.utf8.count, try GmailTokenSet.decode(value.value).lifecycle)
        }

        /// The events the queue holds for `user`, emptied: `(detail-type, event_id, sequence, status)`.
        func delivered(to user: String) throws -> [(type: String, id: String, sequence: Int, status: String)] {
            let (events, invalid) = try queue.drain()
            #expect(invalid.isEmpty, "events against the schema: \(invalid)")
            return events.compactMap { event in
                guard let detail = event["detail"] as? [String: Any], detail["user_id"] as? String == user else { return nil }
                return (
                    event["detail-type"] as? String ?? "?", detail["event_id"] as? String ?? "?", detail["sequence"] as? Int ?? -1,
                    detail["status"] as? String ?? "?"
                )
            }
        }
    }

    static func subject() -> String { "13\(UInt64.random(in: 1_000_000_000_000_000...9_999_999_999_999_999))" }

    /// `PutEvents` is held at the proxy (the bus never answers) until the test lets it
    /// through: store-tokens gives up on it within its short attempt and answers at once;
    /// the held put then lands unanswered, and the refresh run's sweep puts the event
    /// again, so it may arrive twice, always under the one `event_id` it was recorded with.
    @Test("PutEvents hanging: a first connect answers 201 within 5 s; its event arrives under one event_id once the bus recovers", arguments: stores)
    func hangingBus(_ store: String) async throws {
        let world = try await World(store)
        defer { world.stop() }
        let user = world.user("hanging")
        let gate = ProxyGate(limit: .seconds(60))
        world.plan.inject(.hold(gate), at: .operation("PutEvents", occurrence: 1), persistent: true)
        let started = ContinuousClock.now
        #expect(try await world.connect(user, "1//bus-\(world.run)-h", subject: Self.subject()) == 201)
        let took = ContinuousClock.now - started
        #expect(took < .seconds(5), "store-tokens answered after \(took) with the bus hanging")
        print("lifecycle bus hanging on \(store): a first connect answered 201 after \(took)")
        #expect(gate.held >= 1, "store-tokens tried the bus")
        let pending = try #require(try await world.stored(user).outbox?.pending)
        #expect(pending.map(\.kind) == [.connected], "the change stored, its event pending")

        // The bus recovers: the held put lands (its answer long given up on), then the sweep.
        gate.open()
        world.plan.clearFaults()
        try await world.refreshRun()
        let events = try world.delivered(to: user)
        #expect(!events.isEmpty && events.allSatisfy { $0.type == "Gmail Connected" }, "\(events)")
        #expect(Set(events.map(\.id)) == [pending[0].eventID], "one change, one event_id: \(events)")
        #expect(try await world.stored(user).outbox?.pending.isEmpty == true, "nothing left pending")
    }

    /// 250 reconnects of one user while the bus refuses every put (`AccessDeniedException`):
    /// before the outbox had a bound, its events grew the secret past Secrets Manager's
    /// 65,536 bytes after about 230 of them, and every later write of the grant was refused.
    @Test("250 changes while the bus refuses: every post 201, the document within 65,536 bytes, the latest state in order after", arguments: stores)
    func refusingBus(_ store: String) async throws {
        let world = try await World(store)
        defer { world.stop() }
        let user = world.user("refusing"), subject = Self.subject()
        world.plan.inject(.deny, at: .operation("PutEvents", occurrence: 1), persistent: true)
        var statuses: [Int: Int] = [:]
        for index in 0..<250 {
            statuses[try await world.connect(user, "1//bus-\(world.run)-r\(index)", subject: subject), default: 0] += 1
        }
        #expect(statuses == [201: 250], "every post stored: \(statuses)")
        let (bytes, outbox) = try await world.stored(user)
        print("lifecycle bus refusing on \(store): 250 posts \(statuses), the document \(bytes) bytes, \(outbox?.pending.count ?? -1) events pending")
        #expect(bytes <= 65_536, "the document within Secrets Manager's limit: \(bytes) bytes")
        let pending = try #require(outbox?.pending)
        #expect(pending.count == LifecyclePublisher.defaultMaxPending, "the newest events kept, to the bound")
        #expect(world.plan.records.contains { $0.fault == .deny }, "the bus refused")

        world.plan.clearFaults()
        try await world.refreshRun()
        let events = try world.delivered(to: user)
        #expect(Set(events.map(\.id)) == Set(pending.map(\.eventID)), "exactly the events kept: \(events.count)")
        // EventBridge delivers in no order; a consumer orders by sequence.
        let ordered = events.sorted { $0.sequence < $1.sequence }
        #expect(ordered.map(\.id) == pending.map(\.eventID), "the outbox's order is the sequences' order")
        #expect(ordered.last?.id == pending.last?.eventID && ordered.last?.status == "connected", "the latest state arrives")
        #expect(try await world.stored(user).outbox?.pending.isEmpty == true, "nothing left pending")
    }
}
