import Foundation
import PayPulseDomain
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// Many processes of store-tokens, token-refresh, disconnect and user-profile at once
/// against the same 50 users, beside a refresh storm (workers running token-refresh back
/// to back with every set due), for `PAYPULSE_SOAK_SECONDS` (default 60) per backend. The
/// harness samples token sets while they run; at the end it reconnects every deleted grant
/// with writes that all lose (a reconnect failing after its restore), and the
/// ``InvariantChecker`` checks the samples, the final and the restored states and the
/// answers. store-tokens must never answer 409. The phases run one after the other: a
/// private moto_server (grants as secrets), another with the DynamoDB token table and KMS,
/// then one embedded state directory shared by every process. The embedded phase runs in
/// `PAYPULSE_AUTH_MODE=jwks`, its tokens signed by PyJWT (RS256 and ES256) and the keys on
/// loopback, so the soak covers both ways of verifying a token.
///
/// Environment: `PAYPULSE_SOAK_SECONDS`, `PAYPULSE_SOAK_WORKERS` (default 8),
/// `PAYPULSE_SOAK_STORM_WORKERS` (default 3), `PAYPULSE_SOAK_SEED` (default random; the
/// report prints it to replay a run's inputs).
@Suite("Concurrency soak through the built executables", .serialized)
struct ConcurrencySoakTests {
    @Test("moto_server: no lost, stale or unexplained token set")
    func moto() async throws {
        try await soak { try await SoakBackend.moto(google: $0) }
    }

    @Test("moto_server with the DynamoDB token store (DynamoDB and KMS): no lost, stale or unexplained token set")
    func dynamoDB() async throws {
        try await soak { try await SoakBackend.dynamoDB(google: $0) }
    }

    @Test("embedded store shared by every process, PAYPULSE_AUTH_MODE=jwks: no lost, stale or unexplained token set")
    func embedded() async throws {
        try await soak(issuerKeys: true) { try SoakBackend.embedded(google: $0) }
    }
}

private func setting(_ name: String) -> String? {
    ProcessInfo.processInfo.environment[name].flatMap { $0.isEmpty ? nil : $0 }
}

/// - Parameter issuerKeys: Run in `jwks` mode with PyJWT's tokens, not with HS256 ones.
private func soak(issuerKeys: Bool = false, on makeBackend: (FakeGoogleServer) async throws -> SoakBackend) async throws {
    let seconds = setting("PAYPULSE_SOAK_SECONDS").flatMap(Double.init) ?? 60
    let workers = setting("PAYPULSE_SOAK_WORKERS").flatMap(Int.init) ?? 8
    let stormWorkers = setting("PAYPULSE_SOAK_STORM_WORKERS").flatMap(Int.init) ?? 3
    let seed = setting("PAYPULSE_SOAK_SEED").flatMap(UInt64.init) ?? UInt64.random(in: 1..<1_000_000)

    let google = try FakeGoogleServer()
    defer { google.stop() }
    let backend = try await makeBackend(google)
    defer { backend.cleanUp() }
    _ = try await backend.secrets.createSecret(
        name: "Google-OAuth-Client-ID", value: google.clientID, tags: [:], clientRequestToken: SecretVersionID.random().rawValue
    )

    var environment = backend.environment
    let jwts: [String], issuer: PyJWTIssuer.Server?
    if issuerKeys {
        let now = Int(Date().timeIntervalSince1970)
        let signed = try PyJWTIssuer.sign((0..<SoakWorkload.userCount).map { user in
            PyJWTIssuer.Token(
                claims: ["sub": SoakWorkload.userID(user), "iss": "https://soak.issuer.test", "aud": "paypulse-soak", "iat": now - 60, "exp": now + 86_400],
                alg: user % 2 == 0 ? "RS256" : "ES256"
            )
        })
        issuer = try signed.serve()
        jwts = signed.tokens
        environment.merge([
            "PAYPULSE_AUTH_MODE": "jwks", "PAYPULSE_JWT_ISSUER": "https://soak.issuer.test", "PAYPULSE_JWT_AUDIENCE": "paypulse-soak",
            "PAYPULSE_JWT_JWKS_URL": (issuer?.url ?? "") + "/jwks.json",
        ]) { $1 }
    } else {
        let minter = try DevelopmentTokenMinter(settings: try AuthSettings(key: Array(AuthSettings.developmentKey.utf8)))
        jwts = try (0..<SoakWorkload.userCount).map { user in
            try minter.mint(
                subject: SoakWorkload.userID(user), name: nil, email: nil, issuedAt: Date().addingTimeInterval(-60), expiresAt: Date().addingTimeInterval(86_400)
            )
        }
        issuer = nil
    }
    defer { issuer?.stop() }
    let label = backend.name + (issuerKeys ? "-jwks" : "")
    var eventRandom = SplitMix64(seed: seed ^ 0x5EC0_E7E7)
    let events = try SoakSecurityEvents(google: google, audience: google.clientID, using: &eventRandom)
    var receiverEnvironment = environment
    receiverEnvironment["AWS_ENDPOINT_URL"] = backend.receiverEnvironment["AWS_ENDPOINT_URL"]
    let workload = SoakWorkload(
        label: label, jwts: jwts, google: google, environment: environment, receiverEnvironment: receiverEnvironment, events: events
    )

    // Every user exists and is connected before the soak: the first connection
    // (CreateSecret) is not what the soak is about, and moto answers 500 to creations
    // racing lookups.
    var records = try await connectEveryone(workload, backend: backend, seed: seed)

    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("soak-\(backend.name)-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let started = ContinuousClock.now
    let deadline = started + .milliseconds(Int(seconds * 1000))
    async let writers = SoakWorkers.run(count: workers, seed: seed, until: deadline, scratch: scratch) { tag, iteration, runner, random in
        try workload.runOne(tag: tag, iteration: iteration, runner: runner, using: &random)
    }
    async let storm = SoakWorkers.run(count: stormWorkers, prefix: "s", seed: ~seed, until: deadline, scratch: scratch) { tag, _, runner, random in
        try workload.runStorm(tag: tag, runner: runner, using: &random)
    }
    async let sampled = sample(backend, until: deadline, seed: seed)
    let (written, stormed, (samples, samplingErrors)) = await (writers, storm, sampled)
    let elapsed = ContinuousClock.now - started
    let operations = written.records + stormed.records
    let harnessErrors = written.errors + stormed.errors
    records += operations
    // The next scheduled run, which applies what Google said while the receiver's listing lagged.
    let finalRun = try await SpawnedProcess.offThePool { try workload.finalRefresh(runner: try SpawnedFunction(scratch: scratch.appendingPathComponent("final"))) }
    records.append(finalRun)
    #expect(finalRun.unexpected == nil, "the final refresh run: \(finalRun.unexpected ?? "") \(finalRun.failureDetail ?? "")")

    // The last sweep, as the next refresh run would make it: events a put left pending go
    // out, and grants a disconnect marked are deleted once theirs are.
    let sweeper = TokenVault(grants: backend.grants, events: backend.publisher)
    for user in 0..<SoakWorkload.userCount { _ = try await sweeper.flush(try #require(UserID(SoakWorkload.userID(user)))) }
    var finalStates: [Int: FinalState] = [:]
    for user in 0..<SoakWorkload.userCount {
        finalStates[user] = try await backend.finalState(of: SoakWorkload.userID(user))
    }
    var restored: [Int: FinalState] = [:]
    var deletedTaggedConnected: [Int] = []
    for user in 0..<SoakWorkload.userCount {
        guard let reconnect = try await backend.failedReconnect(SoakWorkload.userID(user)) else { continue }
        restored[user] = reconnect.state
        if reconnect.deletedTaggedConnected { deletedTaggedConnected.append(user) }
    }
    let invalidGrants = google.invalidGrantRefreshTokens
    let checker = InvariantChecker(
        records: records, listingLags: backend.listingLags,
        google: GoogleFacts(
            issued: { google.issued(accessToken: $0, presenting: $1) }, invalidGrantRefreshTokens: invalidGrants,
            accountEmail: { SoakWorkload.user(ofRefreshToken: $0).map(SoakWorkload.googleEmail) }
        )
    )
    let violations = checker.violations(finalStates: finalStates, samples: samples, restored: restored)
    let (deliveries, invalidEvents) = try await backend.events()
    let eventViolations = invalidEvents + SoakLifecycleEvents.violations(deliveries, finalStates: finalStates)

    let report = SoakReport(
        backend: label, seed: seed, workers: workers, stormWorkers: stormWorkers,
        seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
        records: records, samples: samples, samplingErrors: samplingErrors, restored: restored.count, deletedTaggedConnected: deletedTaggedConnected,
        tokenCalls: google.tokenCalls, invalidGrants: invalidGrants.count, revokeCalls: google.revokeCalls,
        violations: violations, harnessErrors: harnessErrors
    )
    print(report.text)
    try report.write()

    #expect(harnessErrors.isEmpty, "\(harnessErrors)")
    #expect(violations.isEmpty, "\(violations.count) invariant violations on \(backend.name); see .build/reports/soak.txt")
    // Every change published once, in order, and none that did not happen.
    #expect(eventViolations.isEmpty, "\(eventViolations.count) lifecycle event violations on \(backend.name): \(eventViolations.prefix(5))")
    let kinds = SoakLifecycleEvents.kinds(deliveries)
    print("soak \(backend.name): \(deliveries.count) lifecycle events delivered, kinds \(kinds.sorted())")
    for kind in ["Gmail Disconnected", "Gmail Connected", "Gmail Revoked"] { #expect(kinds.contains(kind), "no \(kind) event on \(backend.name)") }
    // The user's new tokens win over a refresh in flight: store-tokens retries its lost
    // compare-and-swap rather than answer 409.
    #expect(report.storeConflicts.isEmpty, "store-tokens answered 409 \(report.storeConflicts.count) times on \(backend.name)")
    // Every answer is judged against what the workload did; none may be unexplained.
    let unexpected = operations.filter { $0.unexpected != nil }
    #expect(unexpected.isEmpty, "\(unexpected.count) answers the workload cannot explain on \(backend.name)")
    for failed in unexpected.prefix(5) {
        Issue.record("\(failed.function.rawValue) \(failed.tag): \(failed.unexpected ?? "") | \(failed.failureDetail ?? "")")
    }
    // Each function did its job most of the time: a store that refused nearly everything
    // would otherwise pass on the few calls that worked.
    for function in SoakFunction.allCases {
        let runs = operations.filter { $0.function == function }
        let succeeded = runs.filter { $0.isSuccess }.count
        #expect(runs.count >= 5, "\(function.rawValue) ran only \(runs.count) times on \(backend.name)")
        #expect(succeeded * 100 >= runs.count * SoakRecord.minimumSuccessPercent(function),
                "\(function.rawValue): \(succeeded) of \(runs.count) succeeded on \(backend.name)")
    }
    for failed in report.storeConflicts.prefix(5) {
        Issue.record("store-tokens \(failed.tag) for user \(failed.user ?? -1) answered 409: \(failed.failureDetail ?? "")")
    }
    // The soak must have exercised what it checks, or it proves nothing.
    #expect(operations.contains { $0.isStored }, "no store-tokens answered 201")
    #expect(operations.contains { $0.isDisconnected }, "no disconnect answered 200")
    #expect(operations.compactMap(\.summary).contains { $0.refreshed > 0 }, "no refresh run refreshed a grant")
    for kind in SentEvent.Kind.allCases {
        #expect(operations.contains { $0.isEvent(kind) && $0.httpStatus == 202 && $0.event?.redelivery == false }, "no \(kind) event was accepted")
    }
    #expect(operations.contains { $0.function == .securityEvents && $0.event?.redelivery == true }, "no security event was delivered again")
    #expect(operations.contains { $0.function == .securityEvents && $0.event?.late == true && $0.httpStatus == 202 }, "no late security event was delivered")
    #expect(stormWorkers == 0 || stormed.records.compactMap(\.summary).contains { $0.refreshed > 0 }, "the refresh storm refreshed nothing")
    #expect(samples.count > 0, "no token set was sampled during the run")
    if let faults = backend.faults {
        let (hidden, held) = faults.played
        print("soak \(backend.name): the receiver's listing hid its grants \(hidden) times; \(held) writes were held in flight")
        print("soak \(backend.name): calls through the proxies: \(faults.held.plan.operationCounts.sorted { $0.key < $1.key }), the receiver's \(faults.lagging.plan.operationCounts.sorted { $0.key < $1.key })")
        #expect(hidden > 0 && held > 0, "the lagging listing or the writes in flight never played")
    }
}

/// Reads users' secrets in-process until `deadline` while the workers run (half of the
/// reads on the hot users): value and tags, then the connection state from the tags alone,
/// as user-profile reads it. Failed reads are counted, not fatal: the store is under load.
private func sample(_ backend: SoakBackend, until deadline: ContinuousClock.Instant, seed: UInt64) async -> (samples: [Observation], errors: Int) {
    var random = SplitMix64(seed: seed ^ 0x5A3B1E)
    let vault = TokenVault(grants: backend.grants)
    var samples: [Observation] = []
    var errors = 0
    while ContinuousClock.now < deadline {
        let user = Bool.random(using: &random)
            ? Int.random(in: 0..<SoakWorkload.hotUsers, using: &random) : Int.random(in: 0..<SoakWorkload.userCount, using: &random)
        let id = SoakWorkload.userID(user)
        guard let userID = UserID(id) else { return (samples, errors + 1) }
        let started = ContinuousClock.now
        do {
            let state = try await backend.finalState(of: id)
            let connected = try await vault.connectionState(of: userID).isConnected
            samples.append(Observation(user: user, started: started, ended: ContinuousClock.now, state: state, connected: connected))
        } catch {
            errors += 1
        }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return (samples, errors)
}

/// Connects every user once (through the vault, in-process) and records it as the first
/// 201 store-tokens of that user.
private func connectEveryone(_ workload: SoakWorkload, backend: SoakBackend, seed: UInt64) async throws -> [SoakRecord] {
    var random = SplitMix64(seed: seed ^ 0x5EED)
    let vault = TokenVault(grants: backend.grants)
    var records: [SoakRecord] = []
    for user in 0..<SoakWorkload.userCount {
        let id = SoakWorkload.userID(user)
        try await backend.users.putUser(UserRecord(userID: id, name: "Soak User \(user)", email: "\(id)@example.com", createdOn: "2026-11-22T00:00:00Z"))
        var sent = workload.tokens(for: user, tag: "seed", using: &random)
        sent.refreshToken = sent.refreshToken ?? "1//soak-\(workload.label)-\(user)-seed"
        sent.subject = SoakWorkload.googleSubject(user)
        sent.scriptedRevoked = false
        sent.revokedAfterStore = false
        sent.seeded = true
        workload.register(sent)
        let started = ContinuousClock.now
        _ = try await vault.store(
            IncomingTokens(accessToken: sent.accessToken, refreshToken: sent.refreshToken, expiresIn: sent.expiresIn,
                           scopes: sent.scope.split(separator: " ").map(String.init), email: sent.email, subject: sent.subject),
            for: try #require(UserID(id))
        )
        records.append(SoakRecord(
            function: .storeTokens, user: user, tag: "seed", started: started, ended: ContinuousClock.now, exitStatus: 0, httpStatus: 201, sent: sent, isSeed: true
        ))
    }
    return records
}
