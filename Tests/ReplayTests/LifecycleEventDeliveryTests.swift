import Foundation
import PayPulseDomain
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// The lifecycle events through the built functions onto moto's EventBridge, on both AWS
/// stores: a rule forwards every `paypulse.gmail` event to an SQS queue, and each change
/// must deliver exactly its event there, its detail valid against
/// `docs/lifecycle-event.schema.json` (checked by jsonschema, an independent validator).
@Suite("Lifecycle events: each change delivers exactly its event through EventBridge to SQS", .serialized)
struct LifecycleEventDeliveryTests {
    /// Its own moto: the event replay suite resets the shared one between its cases.
    private static let moto = Task { try await MotoServer.launchPrivate() }
    static let client = "lifecycle-ios-client.apps.googleusercontent.com"
    static let issuer = "https://accounts.google.com/"
    static let bus = "paypulse-lifecycle"

    /// A store on moto, its bus and queue, Google, and the users' JWTs.
    struct World {
        let backend: ReplayBackend
        let google: FakeGoogleServer
        let environment: [String: String]
        let queue: LifecycleEventQueue
        let minter: DevelopmentTokenMinter

        init(_ store: String) async throws {
            let server = try await LifecycleEventDeliveryTests.moto.value
            backend = store == "aws" ? try await ReplayBackend.aws(on: server) : try await ReplayBackend.dynamoDB(on: server)
            google = try FakeGoogleServer(clientIDs: [LifecycleEventDeliveryTests.client])
            _ = try await backend.secrets.createSecret(
                name: "Google-OAuth-Client-ID", value: LifecycleEventDeliveryTests.client, tags: [:], clientRequestToken: SecretVersionID.random().rawValue
            )
            queue = try LifecycleEventQueue(endpoint: server.endpoint, bus: LifecycleEventDeliveryTests.bus)
            var environment = backend.environment
            environment["GOOGLE_TOKEN_ENDPOINT"] = google.tokenEndpoint
            environment["GOOGLE_REVOKE_ENDPOINT"] = google.revokeEndpoint
            environment["GOOGLE_RISC_CONFIGURATION_URL"] = google.riscConfigurationURL
            environment["PAYPULSE_EVENT_BUS"] = LifecycleEventDeliveryTests.bus
            // The longest publish budget: a put outlasting the default second on a loaded
            // machine lands all the same and is put again by every later invocation, where
            // this suite counts each event once (the budget is LifecycleBusFaultsThroughFunctionsTests').
            environment["PAYPULSE_EVENT_PUBLISH_MS"] = "10000"
            self.environment = environment
            minter = try DevelopmentTokenMinter(settings: try AuthSettings(key: Array(AuthSettings.developmentKey.utf8)))
        }

        /// What the queue holds now, emptied; each event checked against the schema.
        func drain() throws -> [[String: Any]] {
            let (events, invalid) = try queue.drain()
            #expect(invalid.isEmpty, "events against the schema: \(invalid)")
            return events
        }

        /// Runs `function` on `event`; the answer's status code (the exit status for a schedule).
        @discardableResult
        func run(_ function: String, _ event: Data) async throws -> Int {
            let result = try await FunctionProcess.run(function, event: event, environment: environment)
            #expect(result.status == 0, "\(function): \(result.stderr.suffix(600))")
            let answer = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [String: Any]
            return answer?["statusCode"] as? Int ?? (function == "token-refresh" ? Int(result.status) : -1)
        }

        func jwt(_ user: String) throws -> String {
            try minter.mint(subject: user, name: nil, email: nil, issuedAt: Date().addingTimeInterval(-60), expiresAt: Date().addingTimeInterval(3600))
        }

        /// The app posts `refreshToken` of Google account `subject` for `user`; Google knows the
        /// grant, and its access tokens last `expiresIn` seconds.
        func connect(_ user: String, _ refreshToken: String, subject: String, expiresIn: Int = 3600) async throws -> Int {
            google.addGrant(
                refreshToken: refreshToken, scope: FakeGoogleGrantSpec.signInWithGmailScope, account: FakeGoogleAccount(subject: subject, expiresIn: expiresIn)
            )
            let body: [String: Any] = [
                "access_token": "ya29.app-\(refreshToken)", "refresh_token": refreshToken, "expires_in": expiresIn,
                "scope": FakeGoogleGrantSpec.signInWithGmailScope.split(separator: " ").map(String.init), "token_type": "Bearer",
            ]
            return try await run("store-tokens", FunctionEvents.storeTokens(body, jwt: try jwt(user)))
        }

        /// Google's event of `type` about account `subject`, signed by PyJWT under the published keys.
        func securityEvent(_ type: String, _ subject: String, issuedAt: Int = Int(Date().timeIntervalSince1970) - 5) async throws -> Int {
            let signed = try PyJWTIssuer.sign([PyJWTIssuer.Token(claims: [
                "iss": LifecycleEventDeliveryTests.issuer, "aud": LifecycleEventDeliveryTests.client, "iat": issuedAt, "jti": UUID().uuidString,
                "events": ["https://schemas.openid.net/secevent/\(type)": ["subject": ["subject_type": "iss-sub", "iss": LifecycleEventDeliveryTests.issuer, "sub": subject]]],
            ], alg: "RS256")])
            google.publishRISCKeys(signed.jwks, issuer: LifecycleEventDeliveryTests.issuer)
            return try await run("security-events", FunctionEvents.securityEvent(token: signed.tokens[0]))
        }
    }

    /// What a user's events must be, in `sequence` order: `(detail type, status, previous status, reason, google_sub)`.
    typealias Expected = (type: String, status: String, previous: String, reason: String, subject: String)

    /// Exactly `expected`, in order, each detail filled.
    static func expect(_ events: [[String: Any]], of user: String, _ expected: [Expected], sourceLocation: SourceLocation = #_sourceLocation) {
        let details = events.compactMap { $0["detail"] as? [String: Any] }.filter { $0["user_id"] as? String == user }
            .sorted { ($0["sequence"] as? Int ?? 0) < ($1["sequence"] as? Int ?? 0) }
        let types = events.filter { ($0["detail"] as? [String: Any])?["user_id"] as? String == user }.count
        #expect(details.count == expected.count && types == expected.count, "\(user): \(details)", sourceLocation: sourceLocation)
        let byID = Dictionary(grouping: events, by: { ($0["detail"] as? [String: Any])?["event_id"] as? String ?? "?" })
        for (detail, wanted) in zip(details, expected) {
            let type = byID[detail["event_id"] as? String ?? "?"]?.first?["detail-type"] as? String
            #expect(type == wanted.type && detail["status"] as? String == wanted.status, "\(user): \(wanted.type): \(detail)", sourceLocation: sourceLocation)
            #expect(detail["previous_status"] as? String == wanted.previous && detail["reason"] as? String == wanted.reason, "\(user): \(detail)", sourceLocation: sourceLocation)
            #expect(detail["google_sub"] as? String == wanted.subject, "\(user): \(detail)", sourceLocation: sourceLocation)
            #expect(detail["event_id"] is String && detail["occurred_at"] is String, sourceLocation: sourceLocation)
        }
    }

    @Test("connect, reconnect, switch, invalid_grant, tokens-revoked, disabled then enabled, disconnect, purged", arguments: ["aws", "dynamodb"])
    func everyChange(_ store: String) async throws {
        let world = try await World(store)
        defer { world.google.stop(); world.backend.cleanUp() }
        let (a, b, c, d, e) = ("1001", "1002", "1003", "1004", "1005")
        #expect(try await world.connect("life-1", "1//life-a1", subject: a) == 201)
        #expect(try await world.connect("life-1", "1//life-a2", subject: a) == 201)
        #expect(try await world.connect("life-1", "1//life-b1", subject: b) == 201)
        // A refresh that meets invalid_grant; the others are not due.
        #expect(try await world.connect("life-2", "1//life-c1", subject: c, expiresIn: 60) == 201)
        world.google.invalidateGrant(refreshToken: "1//life-c1")
        #expect(try await world.run("token-refresh", FunctionEvents.tokenRefresh()) == 0)
        // Google's security events, each applied at once.
        #expect(try await world.connect("life-3", "1//life-d1", subject: d) == 201)
        #expect(try await world.connect("life-4", "1//life-e1", subject: e) == 201)
        #expect(try await world.securityEvent("oauth/event-type/tokens-revoked", d) == 202)
        #expect(try await world.securityEvent("risc/event-type/account-disabled", e) == 202)
        var seen = try world.drain()
        // Enabled once Google renews the grant, not before: the refresh run asks at once.
        #expect(try await world.securityEvent("risc/event-type/account-enabled", e) == 202)
        #expect(try world.drain().isEmpty, "account-enabled alone: the grant is not usable until Google renews it")
        #expect(try await world.run("token-refresh", FunctionEvents.tokenRefresh()) == 0)
        // The user disconnects; Google purges another account.
        #expect(try await world.run("disconnect", FunctionEvents.disconnect(jwt: try world.jwt("life-1"))) == 200)
        #expect(try await world.backend.grants.state(of: "life-1").isScheduledForDeletion, "deleted once its event is out")
        #expect(try await world.securityEvent("risc/event-type/account-purged", e) == 202)
        // Nothing more, and nothing twice: a run over what is left publishes nothing new.
        #expect(try await world.run("token-refresh", FunctionEvents.tokenRefresh()) == 0)
        seen += try world.drain()

        Self.expect(seen, of: "life-1", [
            ("Gmail Connected", "connected", "not_connected", "user_connected", a), ("Gmail Reconnected", "connected", "connected", "user_reconnected", a),
            ("Gmail Account Switched", "connected", "connected", "account_switched", b), ("Gmail Disconnected", "disconnected", "connected", "user_disconnected", b),
        ])
        Self.expect(seen, of: "life-2", [
            ("Gmail Connected", "connected", "not_connected", "user_connected", c), ("Gmail Revoked", "revoked", "connected", "invalid_grant", c),
        ])
        Self.expect(seen, of: "life-3", [
            ("Gmail Connected", "connected", "not_connected", "user_connected", d), ("Gmail Revoked", "revoked", "connected", "tokens_revoked", d),
        ])
        Self.expect(seen, of: "life-4", [
            ("Gmail Connected", "connected", "not_connected", "user_connected", e), ("Gmail Disabled", "disabled", "connected", "account_disabled", e),
            ("Gmail Enabled", "connected", "disabled", "account_enabled", e), ("Gmail Purged", "disconnected", "connected", "account_purged", e),
        ])
        #expect(seen.count == 12, "no other event: \(seen.map { $0["detail-type"] ?? "?" })")

        // No token in any event: the refresh tokens sent, and the access tokens of either side.
        let text = String(decoding: try JSONSerialization.data(withJSONObject: seen, options: [.withoutEscapingSlashes]), as: UTF8.self)
        #expect(!text.contains("1//") && !text.contains("ya29."), "a token in an event")
        let details = seen.compactMap { $0["detail"] as? [String: Any] }
        #expect(Set(details.compactMap { $0["event_id"] as? String }).count == details.count, "every change its own event_id")
        for user in Set(details.compactMap { $0["user_id"] as? String }) {
            let sequences = details.filter { $0["user_id"] as? String == user }.compactMap { $0["sequence"] as? Int }
            #expect(sequences == sequences.sorted() && Set(sequences).count == sequences.count, "\(user): \(sequences)")
        }
    }
}
