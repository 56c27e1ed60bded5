import Foundation
import PayPulseDomain
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// Many processes of store-tokens, token-refresh, disconnect and user-profile at once
/// against the same 50 users, for `PAYPULSE_SOAK_SECONDS` (default 60) per backend, then
/// the ``InvariantChecker`` on every user's secret. The phases run one after the other:
/// a private moto_server, then one embedded state directory shared by every process.
///
/// Environment: `PAYPULSE_SOAK_SECONDS`, `PAYPULSE_SOAK_WORKERS` (default 8),
/// `PAYPULSE_SOAK_SEED` (default random; the report prints it to replay a run's inputs).
@Suite("Concurrency soak through the built executables", .serialized)
struct ConcurrencySoakTests {
    @Test("moto_server: no lost, stale or unexplained token set")
    func moto() async throws {
        try await soak { try await SoakBackend.moto(google: $0) }
    }

    @Test("embedded store shared by every process: no lost, stale or unexplained token set")
    func embedded() async throws {
        try await soak { try SoakBackend.embedded(google: $0) }
    }
}

private func setting(_ name: String) -> String? {
    ProcessInfo.processInfo.environment[name].flatMap { $0.isEmpty ? nil : $0 }
}

private func soak(on makeBackend: (FakeGoogleServer) async throws -> SoakBackend) async throws {
    let seconds = setting("PAYPULSE_SOAK_SECONDS").flatMap(Double.init) ?? 60
    let workers = setting("PAYPULSE_SOAK_WORKERS").flatMap(Int.init) ?? 8
    let seed = setting("PAYPULSE_SOAK_SEED").flatMap(UInt64.init) ?? UInt64.random(in: 1..<1_000_000)

    let google = try FakeGoogleServer()
    defer { google.stop() }
    let backend = try await makeBackend(google)
    defer { backend.cleanUp() }
    _ = try await backend.secrets.createSecret(
        name: "Google-OAuth-Client-ID", value: google.clientID, tags: [:], clientRequestToken: SecretVersionID.random().rawValue
    )

    let settings = try AuthSettings(key: Array(AuthSettings.developmentKey.utf8))
    let minter = try DevelopmentTokenMinter(settings: settings)
    var jwts: [String] = []
    for user in 0..<SoakWorkload.userCount {
        jwts.append(try minter.mint(
            subject: SoakWorkload.userID(user), name: nil, email: nil, issuedAt: Date().addingTimeInterval(-60), expiresAt: Date().addingTimeInterval(86_400)
        ))
    }
    let workload = SoakWorkload(label: backend.name, jwts: jwts, google: google, environment: backend.environment)

    // Every user exists and is connected before the soak: the first connection
    // (CreateSecret) is not what the soak is about, and moto answers 500 to creations
    // racing lookups.
    var records = try await connectEveryone(workload, backend: backend, seed: seed)

    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("soak-\(backend.name)-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let started = ContinuousClock.now
    let (operations, harnessErrors) = await SoakWorkers.run(
        count: workers, seed: seed, until: started + .milliseconds(Int(seconds * 1000)), scratch: scratch
    ) { tag, runner, random in
        try workload.runOne(tag: tag, runner: runner, using: &random)
    }
    let elapsed = ContinuousClock.now - started
    records += operations

    var finalStates: [Int: FinalState] = [:]
    for user in 0..<SoakWorkload.userCount {
        finalStates[user] = try await backend.finalState(of: SoakWorkload.userID(user))
    }
    let invalidGrants = google.invalidGrantRefreshTokens
    let checker = InvariantChecker(
        records: records, google: GoogleFacts(issued: { google.issued(accessToken: $0, presenting: $1) }, invalidGrantRefreshTokens: invalidGrants)
    )
    let violations = checker.violations(finalStates: finalStates)

    let report = SoakReport(
        backend: backend.name, seed: seed, workers: workers, seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
        records: records, tokenCalls: google.tokenCalls, invalidGrants: invalidGrants.count, revokeCalls: google.revokeCalls,
        violations: violations, harnessErrors: harnessErrors
    )
    print(report.text)
    try report.write()

    #expect(harnessErrors.isEmpty, "\(harnessErrors)")
    #expect(violations.isEmpty, "\(violations.count) invariant violations on \(backend.name); see .build/reports/soak.txt")
    for failed in operations.filter({ $0.signal != nil || $0.exitStatus != 0 || $0.httpStatus == 500 }).prefix(5) {
        Issue.record("\(failed.function.rawValue) \(failed.outcome): \(failed.failureDetail ?? "")")
    }
    // The soak must have exercised what it checks, or it proves nothing.
    #expect(operations.contains { $0.isStored }, "no store-tokens answered 201")
    #expect(operations.contains { $0.isDisconnected }, "no disconnect answered 200")
    #expect(operations.compactMap(\.summary).contains { $0.refreshed > 0 }, "no refresh run refreshed a grant")
}

/// Connects every user once (through the vault, in-process) and records it as the first
/// 201 store-tokens of that user.
private func connectEveryone(_ workload: SoakWorkload, backend: SoakBackend, seed: UInt64) async throws -> [SoakRecord] {
    var random = SplitMix64(seed: seed ^ 0x5EED)
    let vault = TokenVault(secrets: backend.secrets)
    var records: [SoakRecord] = []
    for user in 0..<SoakWorkload.userCount {
        let id = SoakWorkload.userID(user)
        try await backend.users.putUser(UserRecord(userID: id, name: "Soak User \(user)", email: "\(id)@example.com", createdOn: "2026-11-22T00:00:00Z"))
        var sent = workload.tokens(for: user, tag: "seed", using: &random)
        sent.refreshToken = sent.refreshToken ?? "1//soak-\(workload.label)-\(user)-seed"
        sent.scriptedRevoked = false
        workload.register(sent)
        let started = ContinuousClock.now
        _ = try await vault.store(
            IncomingTokens(accessToken: sent.accessToken, refreshToken: sent.refreshToken, expiresIn: sent.expiresIn,
                           scopes: sent.scope.split(separator: " ").map(String.init), email: sent.email),
            for: try #require(UserID(id))
        )
        records.append(SoakRecord(
            function: .storeTokens, user: user, started: started, ended: ContinuousClock.now, exitStatus: 0, httpStatus: 201, sent: sent, isSeed: true
        ))
    }
    return records
}
