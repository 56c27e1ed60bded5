import Foundation
import PayPulseDomain
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// Google's word on an account through the built functions, on moto behind a
/// ``FaultProxy`` that plays what a real store may: a listing that does not show the grant
/// yet while Google's event is delivered (ListSecrets may lag five minutes, an index is
/// eventually consistent), and a store-tokens write held in flight while Google's newer
/// event is delivered and answered. On Secrets Manager and on DynamoDB with KMS. (The same
/// interleavings on every store, in process: `GoogleWordTests`.)
@Suite("Google's word through the built functions: a lagging listing, a write in flight", .serialized)
struct GoogleWordThroughFunctionsTests {
    /// Its own moto: the event replay suite resets the shared one between its cases.
    private static let moto = Task { try await MotoServer.launchPrivate() }
    static let stores = ["aws", "dynamodb"]
    static let client = "word-ios-client.apps.googleusercontent.com"
    static let issuer = "https://accounts.google.com/"

    /// A store on moto behind the proxy every function's AWS calls go through, and Google.
    struct World {
        let store: String
        let backend: ReplayBackend
        let google: FakeGoogleServer
        let plan = FaultPlan()
        let proxy: FaultProxy
        let environment: [String: String]
        let minter: DevelopmentTokenMinter
        let run = UUID().uuidString.prefix(8).lowercased()

        init(_ store: String) async throws {
            let server = try await GoogleWordThroughFunctionsTests.moto.value
            self.store = store
            backend = store == "aws" ? try await ReplayBackend.aws(on: server) : try await ReplayBackend.dynamoDB(on: server)
            google = try FakeGoogleServer(clientIDs: [GoogleWordThroughFunctionsTests.client])
            _ = try await backend.secrets.createSecret(
                name: "Google-OAuth-Client-ID", value: GoogleWordThroughFunctionsTests.client, tags: [:], clientRequestToken: SecretVersionID.random().rawValue
            )
            proxy = try FaultProxy(upstream: server.endpoint, dialect: .aws, plan: plan)
            var environment = backend.environment
            environment["AWS_ENDPOINT_URL"] = proxy.url
            environment["GOOGLE_TOKEN_ENDPOINT"] = google.tokenEndpoint
            environment["GOOGLE_REVOKE_ENDPOINT"] = google.revokeEndpoint
            environment["GOOGLE_RISC_CONFIGURATION_URL"] = google.riscConfigurationURL
            self.environment = environment
            minter = try DevelopmentTokenMinter(settings: try AuthSettings(key: Array(AuthSettings.developmentKey.utf8)))
        }

        func stop() {
            proxy.stop()
            google.stop()
            backend.cleanUp()
        }

        /// A user of this run, known to the user directory.
        func user(_ index: Int) async throws -> String {
            let id = "word-\(run)-\(index)"
            try await backend.users.putUser(UserRecord(userID: id, name: "Word \(index)", email: "\(id)@example.com", createdOn: "2026-12-02T00:00:00Z"))
            return id
        }

        /// The listing the receiver finds an account's grants by: `ListSecrets`, or the
        /// DynamoDB index's `Query`.
        var listing: String { store == "aws" ? "ListSecrets" : "Query" }

        /// store-tokens' write of a first connection and of a reconnect.
        func write(first: Bool) -> String {
            store == "aws" ? (first ? "CreateSecret" : "PutSecretValue") : (first ? "PutItem" : "UpdateItem")
        }

        /// Runs `function` on `event`; its answer, decoded.
        func call(_ function: String, _ event: Data) async throws -> [String: Any] {
            let result = try await FunctionProcess.run(function, event: event, environment: environment)
            #expect(result.status == 0, "\(function): \(result.stderr.suffix(600))")
            return (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [String: Any] ?? [:]
        }

        func jwt(_ user: String) throws -> String {
            try minter.mint(subject: user, name: nil, email: nil, issuedAt: Date().addingTimeInterval(-60), expiresAt: Date().addingTimeInterval(3600))
        }

        /// The app posts a new grant of Google account `subject` for `user`: store-tokens'
        /// status code.
        func connect(_ user: String, _ refreshToken: String, subject: String) async throws -> Int {
            try await Self.statusCode(of: FunctionProcess.run("store-tokens", event: try connection(user, refreshToken, subject: subject), environment: environment))
        }

        /// store-tokens' event for that connection, once Google knows the grant.
        func connection(_ user: String, _ refreshToken: String, subject: String) throws -> Data {
            google.addGrant(refreshToken: refreshToken, scope: FakeGoogleGrantSpec.signInWithGmailScope, account: FakeGoogleAccount(subject: subject))
            let body: [String: Any] = [
                "access_token": "ya29.app-\(refreshToken)", "refresh_token": refreshToken, "expires_in": 3600,
                "scope": FakeGoogleGrantSpec.signInWithGmailScope.split(separator: " ").map(String.init), "token_type": "Bearer",
            ]
            return FunctionEvents.storeTokens(body, jwt: try jwt(user))
        }

        static func statusCode(of result: FunctionProcess.Result) -> Int {
            #expect(result.status == 0, "\(result.stderr.suffix(600))")
            let answer = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [String: Any]
            return answer?["statusCode"] as? Int ?? -1
        }

        /// Google's event of `type` about `subject`, issued now, signed by PyJWT under the
        /// published keys: the receiver's status code.
        func deliver(_ type: String, _ subject: String, reason: String? = nil) async throws -> Int {
            var body: [String: any Sendable] = ["subject": ["subject_type": "iss-sub", "iss": GoogleWordThroughFunctionsTests.issuer, "sub": subject] as [String: any Sendable]]
            if let reason { body["reason"] = reason }
            let signed = try PyJWTIssuer.sign([PyJWTIssuer.Token(claims: [
                "iss": GoogleWordThroughFunctionsTests.issuer, "aud": GoogleWordThroughFunctionsTests.client, "iat": Int(Date().timeIntervalSince1970),
                "jti": UUID().uuidString, "events": ["https://schemas.openid.net/secevent/\(type)": body] as [String: any Sendable],
            ], alg: "RS256")])
            google.publishRISCKeys(signed.jwks, issuer: GoogleWordThroughFunctionsTests.issuer)
            return try await call("security-events", FunctionEvents.securityEvent(token: signed.tokens[0]))["statusCode"] as? Int ?? -1
        }

        /// user-profile's `gmail_account_connected`.
        func connected(_ user: String) async throws -> Bool? {
            let answer = try await call("user-profile", FunctionEvents.userProfile(jwt: try jwt(user)))
            let body = (answer["body"] as? String).flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            return (body?["data"] as? [String: Any])?["gmail_account_connected"] as? Bool
        }

        /// What fresh-token answers a Gmail reader for `user`: its error code, or `served`.
        func freshToken(_ user: String) async throws -> String {
            let answer = try await call("fresh-token", Data(#"{"user_id":"\#(user)"}"#.utf8))
            return answer["error"] as? String ?? (answer["access_token"] != nil ? "served" : "unreadable")
        }

        func refreshRun() async throws {
            _ = try await call("token-refresh", FunctionEvents.tokenRefresh())
        }

        /// The grant's status as stored, read past the proxy.
        func status(_ user: String) async throws -> GmailTokenSet.Status? {
            try await TokenVault(grants: backend.grants).current(of: try #require(UserID(user)))?.tokenSet.status
        }
    }

    static func subject() -> String { "12\(UInt64.random(in: 1_000_000_000_000_000...9_999_999_999_999_999))" }

    /// The receiver's listing shows nothing while the event is delivered: Google's word is
    /// recorded all the same, fresh-token refuses the account at once, and the first refresh
    /// run applies the word to the grant the listing now shows.
    @Test("a listing that hides the grant while Google's event is delivered: fresh-token refuses at once, the profile reads not connected after one refresh run",
          arguments: stores, ["risc/event-type/account-disabled", "oauth/event-type/tokens-revoked"])
    func laggingListing(_ store: String, _ type: String) async throws {
        let world = try await World(store)
        defer { world.stop() }
        // Two users connected one Google account: one asks fresh-token at once, the other
        // waits for the refresh run.
        let reader = try await world.user(0), other = try await world.user(1), subject = Self.subject()
        #expect(try await world.connect(reader, "1//word-\(world.run)-a", subject: subject) == 201)
        #expect(try await world.connect(other, "1//word-\(world.run)-b", subject: subject) == 201)

        world.plan.inject(.emptyListing, at: .operation(world.listing, occurrence: world.plan.count(of: world.listing) + 1), persistent: true)
        let disabling = type.hasSuffix("account-disabled")
        #expect(try await world.deliver(type, subject, reason: disabling ? "hijacking" : nil) == 202)
        world.plan.clearFaults()
        #expect(world.plan.records.contains { $0.fault == .emptyListing }, "the receiver looked for the account's grants and found none")
        #expect(try await world.status(reader) == .active, "the event reached no grant")
        #expect(try await world.status(other) == .active)

        let ended: GmailTokenSet.Status = disabling ? .disabled : .revoked
        #expect(try await world.freshToken(reader) == ended.rawValue, "no token of an account Google ended, at once")
        #expect(try await world.connected(reader) == false)
        let proofs = world.google.refreshCount(for: "1//word-\(world.run)-b")  // store-tokens' own
        try await world.refreshRun()
        #expect(try await world.connected(other) == false, "the first refresh run applies Google's word")
        #expect(try await world.status(other) == ended)
        #expect(world.google.refreshCount(for: "1//word-\(world.run)-b") == proofs, "a grant Google ended is not refreshed")
    }

    /// store-tokens has Google's answer; its write is held until Google's newer
    /// account-disabled was delivered and answered. On a first connection the receiver finds
    /// nothing; on a reconnect it disables the stored grant and the held swap loses. Either
    /// way Google's word wins at once.
    @Test("a store-tokens write held while Google's newer account-disabled is delivered: refused, not connected, fresh-token refuses, at once",
          arguments: stores, [true, false])
    func heldWrite(_ store: String, first: Bool) async throws {
        let world = try await World(store)
        defer { world.stop() }
        let user = try await world.user(0), subject = Self.subject()
        if !first { #expect(try await world.connect(user, "1//word-\(world.run)-old", subject: subject) == 201) }

        let gate = ProxyGate(limit: .seconds(20))
        let write = world.write(first: first)
        world.plan.inject(.hold(gate), at: .operation(write, occurrence: world.plan.count(of: write) + 1))
        let connection = try world.connection(user, "1//word-\(world.run)-new", subject: subject), environment = world.environment
        async let stored = FunctionProcess.run("store-tokens", event: connection, environment: environment)
        let held = await gate.waitUntilHeld()
        #expect(held, "store-tokens' \(write) never reached the proxy")
        #expect(try await world.deliver("risc/event-type/account-disabled", subject, reason: "hijacking") == 202)
        gate.open()
        #expect(World.statusCode(of: try await stored) == 400, "Google's newer word refuses the grant it proved before")

        #expect(try await world.connected(user) == false)
        #expect(try await world.freshToken(user) == "disabled")
        #expect(try await world.status(user) == .disabled)
    }
}
