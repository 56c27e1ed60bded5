import Foundation
import Logging
import PayPulseApp
import PayPulseDomain
import PayPulseHandlers
import PayPulsePorts
import PayPulseRuntime
import PayPulseTestSupport
import Testing

/// Each function's declared reach (``Assembly/reach(of:)``, from which `paypulse iam` derives
/// its IAM statements) is exactly what its composition calls: the real compositions run on the
/// embedded store with every port recorded, over a walk that takes each path a declaration
/// names (first connection, reconnect, profile, fresh token, refresh with a refused grant,
/// disconnect of a live and of a revoked grant, reconnect after a disconnect, then Google's
/// security events: the account's tokens revoked, then the account purged).
@Suite("Each composition calls exactly what its reach declares")
struct FunctionReachTests {
    @Test("the recorded grant operations, user reads and secrets equal each declaration")
    func reachIsExact() async throws {
        let walk = try await ReachWalk()
        let observed = try await walk.run()
        for name in HandlerName.allCases {
            let declared = Assembly.reach(of: name), seen = observed[name] ?? Reach()
            #expect(seen.grants == declared.grants, "\(name.rawValue): calls \(seen.grants.sorted()), declares \(declared.grants.sorted())")
            #expect(seen.readsUsers == declared.readsUsers, "\(name.rawValue): reads users \(seen.readsUsers)")
            #expect(seen.secrets == Set(declared.secrets.map { "\($0)" }), "\(name.rawValue): reads secrets \(seen.secrets.sorted())")
            #expect(seen.recordsSecurityEvents == declared.recordsSecurityEvents, "\(name.rawValue): uses the security-event ledger \(seen.recordsSecurityEvents)")
            #expect(seen.countsPosts == declared.countsPosts, "\(name.rawValue): counts posts \(seen.countsPosts)")
            #expect(seen.publishesEvents == declared.publishesEvents, "\(name.rawValue): publishes events \(seen.publishesEvents)")
            #expect(seen.readsGoogleWord == declared.readsGoogleWord, "\(name.rawValue): reads Google's word \(seen.readsGoogleWord)")
        }
    }
}

/// What one function was seen to call.
struct Reach: Sendable {
    var grants: Set<GrantOperation> = []
    var readsUsers = false
    var secrets: Set<String> = []
    var recordsSecurityEvents = false
    var countsPosts = false
    var publishesEvents = false
    var readsGoogleWord = false
}

/// The calls of the function running now.
final class ReachLog: @unchecked Sendable {
    private let lock = NSLock()
    private var reach = Reach()

    func grant(_ operation: GrantOperation) { lock.withLock { _ = reach.grants.insert(operation) } }
    func user() { lock.withLock { reach.readsUsers = true } }
    func secret(_ name: String) { lock.withLock { _ = reach.secrets.insert(name) } }
    func ledger() { lock.withLock { reach.recordsSecurityEvents = true } }
    func quota() { lock.withLock { reach.countsPosts = true } }
    func events() { lock.withLock { reach.publishesEvents = true } }
    func words() { lock.withLock { reach.readsGoogleWord = true } }
    /// While set, the bus fails every put, so events stay pending in their grants.
    var busDown: Bool {
        get { lock.withLock { down } }
        set { lock.withLock { down = newValue } }
    }
    private var down = false
    func take() -> Reach { lock.withLock { defer { reach = Reach() }; return reach } }
}

/// The real compositions on a fresh embedded store, with recorded ports and Google in memory.
struct ReachWalk {
    static let jwtSecretID = "paypulse/jwt-key", key = String(repeating: "k", count: 48)
    let assembly: Assembly, plain: Assembly, log = ReachLog(), secretCalls = StoreCallLog(), google = InMemoryGoogleOAuth(), minter: DevelopmentTokenMinter
    /// Google's RISC side: PyJWT's key set published where the discovery document names it.
    let risc: FakeGoogleServer
    /// The configuration secrets by ID, named as ``FunctionOperations/ConfigurationSecret`` names them.
    let configurationSecrets: [String: String]

    init() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("reach-\(UUID().uuidString)").path
        // A window of a day: every stored grant is due, so fresh-token and the refresh run write.
        risc = try FakeGoogleServer()
        let configuration = try AppConfiguration.fromEnvironment([
            "PAYPULSE_STORE": "embedded", "PAYPULSE_STATE_DIR": directory, "PAYPULSE_JWT_SECRET_ID": Self.jwtSecretID,
            "REFRESH_WINDOW_SECONDS": "86400", "GOOGLE_RISC_CONFIGURATION_URL": risc.riscConfigurationURL,
        ])
        plain = try Assembly.build(configuration: configuration, logger: Logger(label: "reach"))
        let secrets = try plain.secretStore()
        _ = try await secrets.createSecret(name: Self.jwtSecretID, value: Self.key, tags: [:], clientRequestToken: UUID().uuidString)
        _ = try await secrets.createSecret(
            name: configuration.google.clientIDSecretID, value: google.clientID, tags: [:], clientRequestToken: UUID().uuidString
        )
        try await plain.userDirectory().putUser(UserRecord(userID: "user-1", name: "Jane", email: "jane@example.com", createdOn: "2024-11-01T10:00:00Z"))
        google.addGrant("1//one", subject: "110000000000000000001", email: "one@gmail.com")
        google.addGrant("1//two", subject: "110000000000000000002", email: "two@gmail.com")
        minter = try DevelopmentTokenMinter(settings: try AuthSettings(key: Array(Self.key.utf8)))
        configurationSecrets = [Self.jwtSecretID: "jwtKey", configuration.google.clientIDSecretID: "googleClientID"]
        let log = log, google = google, secretCalls = secretCalls
        var wrappers = PortWrappers()
        wrappers.grants = { RecordingGrants(inner: $0, log: log) }
        wrappers.states = { RecordingStates(inner: $0, log: log) }
        wrappers.users = { RecordingUsers(inner: $0, log: log) }
        wrappers.secrets = { CallRecordingSecretStore($0, log: secretCalls) }
        wrappers.google = { _ in google }
        wrappers.ledger = { RecordingLedger(inner: $0, log: log) }
        wrappers.words = { RecordingWords(inner: $0, log: log) }
        wrappers.quota = { RecordingQuota(inner: $0, log: log) }
        wrappers.events = { RecordingBus(inner: $0, log: log) }
        assembly = plain.wrapping(wrappers)
    }

    /// Runs the walk; what each function called.
    func run() async throws -> [HandlerName: Reach] {
        var seen: [HandlerName: Reach] = [:]
        func record(_ name: HandlerName, _ step: () async throws -> Void) async rethrows {
            _ = log.take()
            secretCalls.reset()
            try await step()
            for call in secretCalls.calls {
                for (id, name) in configurationSecrets where call == "SecretStore.getSecretValue(\(id))" { log.secret(name) }
            }
            let reach = log.take()
            seen[name, default: Reach()].grants.formUnion(reach.grants)
            seen[name, default: Reach()].readsUsers = seen[name, default: Reach()].readsUsers || reach.readsUsers
            seen[name, default: Reach()].secrets.formUnion(reach.secrets)
            seen[name, default: Reach()].recordsSecurityEvents = seen[name, default: Reach()].recordsSecurityEvents || reach.recordsSecurityEvents
            seen[name, default: Reach()].countsPosts = seen[name, default: Reach()].countsPosts || reach.countsPosts
            seen[name, default: Reach()].publishesEvents = seen[name, default: Reach()].publishesEvents || reach.publishesEvents
            seen[name, default: Reach()].readsGoogleWord = seen[name, default: Reach()].readsGoogleWord || reach.readsGoogleWord
        }
        try await record(.storeTokens) { try await connect("user-1", "1//one", expect: 201) }
        try await record(.storeTokens) { try await connect("user-1", "1//one", expect: 200) }
        try await record(.storeTokens) { try await connect("user-2", "1//two", expect: 201) }
        try await record(.userProfile) { try await http(.userProfile, "GET", "/v1/user/me", user: "user-1", expect: 200) }
        // Not yet verified: fresh-token refreshes, and the renewed set's tags differ, so it re-tags and checks the state.
        try await rewrite("user-1") { $0.verified = false }
        try await record(.freshToken) {
            let handler = try #require(try await assembly.eventHandlers(for: .freshToken).direct)
            let answer = await handler(Array(#"{"user_id":"user-1"}"#.utf8), context)
            #expect(String(decoding: answer, as: UTF8.self).contains("access_token"))
        }
        try await google.revoke(token: "1//two")  // Google refuses user-2's grant: the run marks it revoked
        try await record(.tokenRefresh) {
            let handler = try #require(try await assembly.eventHandlers(for: .tokenRefresh, metrics: DiscardedMetrics()).scheduled)
            _ = try await handler(ScheduledEvent(), context)
        }
        // user-2's tags, stale, still say active: the next run reads it, skips it and repairs the tags.
        let grants = try plain.grantStore(), revoked = try await grants.read("user-2")
        var listed = try GmailTokenSet.decode(revoked.value)
        listed.status = .active
        try await grants.mark("user-2", attributes: TokenSetTags.tags(for: listed), expected: revoked.version)
        try await record(.tokenRefresh) {
            let handler = try #require(try await assembly.eventHandlers(for: .tokenRefresh, metrics: DiscardedMetrics()).scheduled)
            _ = try await handler(ScheduledEvent(), context)
        }
        try await record(.disconnect) { try await http(.disconnect, "DELETE", "/v1/auth/gmail-tokens", user: "user-2", expect: 200) }
        // The bus down: user-1's disconnect is stored with its event pending, and the grant kept
        // until the event is out; the second disconnect finds its mark (re-tags) and finishes.
        log.busDown = true
        try await record(.disconnect) { try await http(.disconnect, "DELETE", "/v1/auth/gmail-tokens", user: "user-1", expect: 200) }
        log.busDown = false
        try await record(.disconnect) { try await http(.disconnect, "DELETE", "/v1/auth/gmail-tokens", user: "user-1", expect: 200) }
        // Two more disconnects left pending, finished by fresh-token and by the refresh run's sweep.
        google.addGrant("1//three", subject: "110000000000000000003", email: "three@gmail.com")
        google.addGrant("1//four", subject: "110000000000000000004", email: "four@gmail.com")
        try await record(.storeTokens) { try await connect("user-3", "1//three", expect: 201) }
        try await record(.storeTokens) { try await connect("user-4", "1//four", expect: 201) }
        log.busDown = true
        try await record(.disconnect) { try await http(.disconnect, "DELETE", "/v1/auth/gmail-tokens", user: "user-3", expect: 200) }
        try await record(.disconnect) { try await http(.disconnect, "DELETE", "/v1/auth/gmail-tokens", user: "user-4", expect: 200) }
        log.busDown = false
        try await record(.freshToken) {
            let handler = try #require(try await assembly.eventHandlers(for: .freshToken).direct)
            let answer = String(decoding: await handler(Array(#"{"user_id":"user-3"}"#.utf8), context), as: UTF8.self)
            #expect(!answer.contains("access_token"), "fresh-token for a disconnected user: \(answer)")
        }
        try await record(.tokenRefresh) {
            let handler = try #require(try await assembly.eventHandlers(for: .tokenRefresh, metrics: DiscardedMetrics()).scheduled)
            _ = try await handler(ScheduledEvent(), context)
        }
        for user in ["user-3", "user-4"] {
            #expect(try await plain.grantStore().state(of: user).isScheduledForDeletion, "\(user): deleted once its event is out")
        }
        google.addGrant("1//one", subject: "110000000000000000001", email: "one@gmail.com")  // the disconnect revoked it
        try await record(.storeTokens) { try await connect("user-1", "1//one", expect: 201) }
        // Google's security events about user-1's account: its tokens revoked, again (the grant
        // is so already: re-tagged), then the account purged (marked, then deleted).
        let subject = "110000000000000000001", issuer = "https://accounts.google.com/"
        let types = ["oauth/event-type/tokens-revoked", "oauth/event-type/tokens-revoked", "risc/event-type/account-purged"]
        let signed = try PyJWTIssuer.sign(types.map { type in
            PyJWTIssuer.Token(claims: [
                "iss": issuer, "aud": google.clientID, "iat": Int(Date().timeIntervalSince1970) - 5, "jti": UUID().uuidString,
                "events": ["https://schemas.openid.net/secevent/\(type)": ["subject": ["subject_type": "iss-sub", "iss": issuer, "sub": subject]]],
            ], alg: "RS256")
        })
        risc.publishRISCKeys(signed.jwks, issuer: issuer)
        for token in signed.tokens {
            try await record(.securityEvents) { try await push(token) }
        }
        // Google's word recorded on accounts whose grants the receiver did not reach (a lagging
        // listing): a reconnect Google proved before the purge is refused and deleted; a
        // refresh run applies a word to the grants found by account; fresh-token applies its own.
        try await record(.storeTokens) { try await connect("user-1", "1//one", expect: 400) }
        google.addGrant("1//five", subject: "110000000000000000005", email: "five@gmail.com")
        google.addGrant("1//six", subject: "110000000000000000006", email: "six@gmail.com")
        try await record(.storeTokens) { try await connect("user-5", "1//five", expect: 201) }
        try await record(.storeTokens) { try await connect("user-6", "1//six", expect: 201) }
        let words = try plain.googleAccountWords(), now = Date()
        try await words.record(.disabled, issuedAt: now, for: "110000000000000000005")
        try await words.record(.disabled, issuedAt: now, for: "110000000000000000006")
        try await record(.freshToken) {
            let handler = try #require(try await assembly.eventHandlers(for: .freshToken).direct)
            let answer = String(decoding: await handler(Array(#"{"user_id":"user-5"}"#.utf8), context), as: UTF8.self)
            #expect(answer.contains("disabled"), "fresh-token for a disabled account: \(answer)")
        }
        try await record(.tokenRefresh) {
            let handler = try #require(try await assembly.eventHandlers(for: .tokenRefresh, metrics: DiscardedMetrics()).scheduled)
            _ = try await handler(ScheduledEvent(), context)
        }
        #expect(try GmailTokenSet.decode(try await plain.grantStore().read("user-6").value).status == .disabled)
        return seen
    }

    /// Posts one security event token to the composition, as Google pushes it.
    private func push(_ token: String) async throws {
        let request = APIRequest(
            method: "POST", path: "/v1/google/security-events", headers: APIHeaders(["content-type": "application/secevent+jwt"]),
            body: Array(token.utf8)
        )
        let handler = try #require(try await assembly.eventHandlers(for: .securityEvents, metrics: DiscardedMetrics()).http)
        let response = await handler(request, context)
        #expect(response.status == 202, "security-events: \(response.body)")
    }

    /// Changes `user`'s stored set behind the functions' back (through the unrecorded store).
    private func rewrite(_ user: String, _ change: (inout GmailTokenSet) -> Void) async throws {
        let grants = try plain.grantStore(), stored = try await grants.read(user)
        var set = try GmailTokenSet.decode(stored.value)
        change(&set)
        _ = try await grants.replace(user, expected: stored.version, value: try set.jsonString(), attributes: TokenSetTags.tags(for: set))
    }

    private var context: InvocationContext { InvocationContext(logger: Logger(label: "reach")) }

    private func connect(_ user: String, _ refreshToken: String, expect status: Int) async throws {
        let body = #"{"access_token":"ya29.a","refresh_token":"\#(refreshToken)","expires_in":3600,"scope":"\#(InMemoryGoogleOAuth.signInScope)"}"#
        try await http(.storeTokens, "POST", "/v1/auth/gmail-tokens", user: user, body: body, expect: status)
    }

    private func http(_ name: HandlerName, _ method: String, _ path: String, user: String, body: String = "", expect status: Int) async throws {
        let now = Date()
        let token = try minter.mint(subject: user, name: nil, email: nil, issuedAt: now.addingTimeInterval(-60), expiresAt: now.addingTimeInterval(3600))
        let request = APIRequest(
            method: method, path: path, headers: APIHeaders(["authorization": "Bearer \(token)", "content-type": "application/json"]), body: Array(body.utf8)
        )
        let handler = try #require(try await assembly.eventHandlers(for: name).http)
        let response = await handler(request, context)
        #expect(status >= 400 ? response.status == status : (200..<300).contains(response.status), "\(name.rawValue) \(method) for \(user): \(response.body)")
    }
}

/// Records that the security-event ledger is used.
struct RecordingLedger: SecurityEventLedger {
    let inner: any SecurityEventLedger, log: ReachLog
    func contains(_ jti: String) async throws -> Bool { log.ledger(); return try await inner.contains(jti) }
    func claim(_ jti: String, by claimant: String, until expiry: Date) async throws -> Bool {
        log.ledger()
        return try await inner.claim(jti, by: claimant, until: expiry)
    }
    func release(_ jti: String, by claimant: String) async throws { log.ledger(); try await inner.release(jti, by: claimant) }
    func record(_ jti: String, until expiry: Date) async throws { log.ledger(); try await inner.record(jti, until: expiry) }
}

/// Records that Google's word on accounts is read.
struct RecordingWords: GoogleAccountWords {
    let inner: any GoogleAccountWords, log: ReachLog
    func word(of subject: String) async throws -> GoogleAccountWord { log.words(); return try await inner.word(of: subject) }
    func record(_ kind: GoogleAccountWord.Kind, issuedAt: Date, for subject: String) async throws {
        log.words()
        try await inner.record(kind, issuedAt: issuedAt, for: subject)
    }
    func accounts(spokenOfSince date: Date) async throws -> [String] { log.words(); return try await inner.accounts(spokenOfSince: date) }
}

/// Records that posts are counted.
struct RecordingQuota: RequestQuota {
    let inner: any RequestQuota, log: ReachLog
    func take(for user: String, at now: Double, id: String) async throws -> QuotaDecision { log.quota(); return try await inner.take(for: user, at: now, id: id) }
}

/// Records ``GrantOperation/state`` on a ``GrantStates``.
struct RecordingStates: GrantStates {
    let inner: any GrantStates, log: ReachLog
    func state(of user: String) async throws -> GrantState { log.grant(.state); return try await inner.state(of: user) }
}

/// Records the ``GrantOperation`` of every call, then passes it on.
struct RecordingGrants: GrantStore {
    let inner: any GrantStore, log: ReachLog

    var writesAttributesWithValue: Bool { inner.writesAttributesWithValue }
    var listsOnlyDue: Bool { inner.listsOnlyDue }
    func state(of user: String) async throws -> GrantState { log.grant(.state); return try await inner.state(of: user) }
    func read(_ user: String) async throws -> GrantValue { log.grant(.read); return try await inner.read(user) }
    func create(_ user: String, value: String, attributes: [String: String]) async throws -> GrantVersion {
        log.grant(.create); return try await inner.create(user, value: value, attributes: attributes)
    }
    func replace(_ user: String, expected: GrantVersion, value: String, attributes: [String: String]?) async throws -> GrantVersion {
        log.grant(.replace); return try await inner.replace(user, expected: expected, value: value, attributes: attributes)
    }
    func mark(_ user: String, attributes: [String: String], expected: GrantVersion?) async throws {
        log.grant(.mark); try await inner.mark(user, attributes: attributes, expected: expected)
    }
    func delete(_ user: String, expected: GrantVersion?, recoveryWindowDays: Int) async throws -> Date {
        log.grant(.delete); return try await inner.delete(user, expected: expected, recoveryWindowDays: recoveryWindowDays)
    }
    func restore(_ user: String) async throws { log.grant(.restore); try await inner.restore(user) }
    func list(userPrefix: String, includeDeleted: Bool, cursor: String?, limit: Int) async throws -> GrantPage {
        log.grant(.list); return try await inner.list(userPrefix: userPrefix, includeDeleted: includeDeleted, cursor: cursor, limit: limit)
    }
    func users(with attribute: IndexedGrantAttribute, equalTo value: String) async throws -> [String] {
        log.grant(.findByAttribute); return try await inner.users(with: attribute, equalTo: value)
    }
    func listDue(userPrefix: String, dueBy: Date, cursor: String?, limit: Int) async throws -> GrantPage {
        log.grant(.listDue); return try await inner.listDue(userPrefix: userPrefix, dueBy: dueBy, cursor: cursor, limit: limit)
    }
}

/// Records that events are published, and fails every put while ``ReachLog/busDown``.
struct RecordingBus: LifecycleEventBus {
    let inner: any LifecycleEventBus, log: ReachLog
    var maxEntriesPerPut: Int { inner.maxEntriesPerPut }
    func put(_ entries: [LifecycleBusEntry], within budget: Duration) async throws(LifecycleBusFailure) -> [LifecycleBusFailure?] {
        log.events()
        if log.busDown { throw LifecycleBusFailure(code: "unreachable", refused: false) }
        return try await inner.put(entries, within: budget)
    }
}

/// Records that users were read.
struct RecordingUsers: UserDirectory {
    let inner: any UserDirectory, log: ReachLog
    func user(id: String) async throws -> UserRecord? { log.user(); return try await inner.user(id: id) }
    func putUser(_ user: UserRecord) async throws { log.user(); try await inner.putUser(user) }
}

