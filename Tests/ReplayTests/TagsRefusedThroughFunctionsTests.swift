import Foundation
import PayPulseDomain
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// Secrets Manager's two-step write through the built functions, on moto behind a
/// ``FaultProxy``: a reconnect over a grant Google had refused, while every `TagResource`
/// is refused (and, in one case, every `PutEvents` too). The value lands, store-tokens
/// answers it stored, and the refresh runs that follow find the tags stamped for an older
/// version, rewrite them from the value and publish what is pending: the profile reads
/// connected and `Gmail Reconnected` is on the bus after at most two runs.
@Suite("A reconnect whose tag writes are all refused, through the built functions", .serialized)
struct TagsRefusedThroughFunctionsTests {
    /// Its own moto: the event replay suite resets the shared one between its cases.
    private static let moto = Task { try await MotoServer.launchPrivate() }
    static let client = "tags-ios-client.apps.googleusercontent.com"
    static let bus = "paypulse-tags-refused"

    @Test("connected and Gmail Reconnected on the bus after at most two refresh runs", arguments: [false, true])
    func reconnectWithTagsRefused(busRefusing: Bool) async throws {
        let server = try await Self.moto.value
        let backend = try await ReplayBackend.aws(on: server)
        defer { backend.cleanUp() }
        let google = try FakeGoogleServer(clientIDs: [Self.client])
        defer { google.stop() }
        _ = try await backend.secrets.createSecret(
            name: "Google-OAuth-Client-ID", value: Self.client, tags: [:], clientRequestToken: SecretVersionID.random().rawValue
        )
        let queue = try LifecycleEventQueue(endpoint: server.endpoint, bus: Self.bus)
        let plan = FaultPlan()
        let proxy = try FaultProxy(upstream: server.endpoint, dialect: .aws, plan: plan)
        defer { proxy.stop() }
        var environment = backend.environment
        environment["AWS_ENDPOINT_URL"] = proxy.url
        environment["GOOGLE_TOKEN_ENDPOINT"] = google.tokenEndpoint
        environment["GOOGLE_REVOKE_ENDPOINT"] = google.revokeEndpoint
        environment["GOOGLE_RISC_CONFIGURATION_URL"] = google.riscConfigurationURL
        environment["PAYPULSE_EVENT_BUS"] = Self.bus
        // The longest publish budget: a put that outlasts the default second on a loaded
        // machine lands all the same and is put again by the next run, and this suite counts
        // each event once (the budget itself is LifecycleBusFaultsThroughFunctionsTests').
        environment["PAYPULSE_EVENT_PUBLISH_MS"] = "10000"
        let minter = try DevelopmentTokenMinter(settings: try AuthSettings(key: Array(AuthSettings.developmentKey.utf8)))
        let user = "tags-\(UUID().uuidString.prefix(8).lowercased())-\(busRefusing)"
        try await backend.users.putUser(UserRecord(userID: user, name: "Tags", email: "\(user)@example.com", createdOn: "2026-12-03T00:00:00Z"))
        let jwt = try minter.mint(subject: user, name: nil, email: nil, issuedAt: Date().addingTimeInterval(-60), expiresAt: Date().addingTimeInterval(3600))

        func call(_ function: String, _ event: Data) async throws -> [String: Any] {
            let result = try await FunctionProcess.run(function, event: event, environment: environment)
            #expect(result.status == 0, "\(function): \(result.stderr.suffix(600))")
            return (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [String: Any] ?? [:]
        }
        func connect(_ refreshToken: String, expiresIn: Int) async throws -> Int {
            google.addGrant(
                refreshToken: refreshToken, scope: FakeGoogleGrantSpec.signInWithGmailScope,
                account: FakeGoogleAccount(subject: "118000000000000000042", expiresIn: expiresIn)
            )
            let body: [String: Any] = [
                "access_token": "ya29.app-\(refreshToken)", "refresh_token": refreshToken, "expires_in": expiresIn,
                "scope": FakeGoogleGrantSpec.signInWithGmailScope.split(separator: " ").map(String.init), "token_type": "Bearer",
            ]
            return try await call("store-tokens", FunctionEvents.storeTokens(body, jwt: jwt))["statusCode"] as? Int ?? -1
        }
        func connected() async throws -> Bool? {
            let answer = try await call("user-profile", FunctionEvents.userProfile(jwt: jwt))
            let body = (answer["body"] as? String).flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            return (body?["data"] as? [String: Any])?["gmail_account_connected"] as? Bool
        }
        func events() throws -> [(type: String, id: String)] {
            let (events, invalid) = try queue.drain()
            #expect(invalid.isEmpty, "\(invalid)")
            return events.compactMap { event in
                let detail = event["detail"] as? [String: Any]
                guard detail?["user_id"] as? String == user else { return nil }
                return (event["detail-type"] as? String ?? "?", detail?["event_id"] as? String ?? "?")
            }
        }

        // Connected, then refused by Google at the next refresh run: revoked, event out.
        #expect(try await connect("1//tags-old-\(user)", expiresIn: 60) == 201)
        google.invalidateGrant(refreshToken: "1//tags-old-\(user)")
        _ = try await call("token-refresh", FunctionEvents.tokenRefresh())
        #expect(try await connected() == false)
        #expect(try events().map(\.type) == ["Gmail Connected", "Gmail Revoked"])

        // The reconnect, every tag write refused (and every put to the bus, in one case).
        plan.inject(.deny, at: .operation("TagResource", occurrence: plan.count(of: "TagResource") + 1), persistent: true)
        if busRefusing { plan.inject(.status(503), at: .operation("PutEvents", occurrence: plan.count(of: "PutEvents") + 1), persistent: true) }
        let answer = try await connect("1//tags-new-\(user)", expiresIn: 3600)
        plan.clearFaults()
        #expect([200, 201].contains(answer), "the value is stored: store-tokens answers so, not 503 (\(answer))")
        #expect(plan.records.contains { $0.operation == "TagResource" && $0.fault == .deny }, "the reconnect's tags were refused")

        var runs = 0
        var delivered = busRefusing ? [] : try events()
        while runs < 2, try await connected() != true || !delivered.contains(where: { $0.type == "Gmail Reconnected" }) {
            _ = try await call("token-refresh", FunctionEvents.tokenRefresh())
            runs += 1
            delivered += try events()
        }
        #expect(try await connected() == true, "the profile reads connected after \(runs) refresh runs")
        let reconnected = delivered.filter { $0.type == "Gmail Reconnected" }
        #expect(!reconnected.isEmpty && Set(reconnected.map(\.id)).count == 1, "Gmail Reconnected once, one event_id, after \(runs) runs: \(delivered)")
        #expect(delivered.allSatisfy { $0.type == "Gmail Reconnected" }, "\(delivered)")
    }
}
