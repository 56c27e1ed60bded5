import Foundation
import PayPulseDomain
import PayPulsePorts
import PayPulseResponseMatching
import PayPulseTestSupport
import Testing

/// Pipes every `events/` file through the built executable on standard input and compares
/// standard output with its expected response, on the embedded store and on moto_server;
/// then reads the stored secret back and checks every field, and checks that no token,
/// JWT, key or signature (``SecretScanner``) appears in any output at trace log level.
@Suite("Event replay through the built executables")
struct EventReplayTests {
    @Test("embedded store", arguments: ReplayManifest.allCases)
    func embedded(_ replayCase: ReplayManifest.Case) async throws {
        let backend = try ReplayBackend.embedded()
        defer { backend.cleanUp() }
        try await replay(replayCase, on: backend)
    }

    @Test("embedded store, PAYPULSE_AUTH_MODE=jwks: every API event with its token signed again by PyJWT (RS256, ES256)", arguments: JWKSReplay.cases)
    func issuerKeys(_ replayCase: ReplayManifest.Case) async throws {
        let backend = try ReplayBackend.embedded()
        defer { backend.cleanUp() }
        try await replay(replayCase, on: backend, issuer: try JWKSReplay.shared())
    }

    @Suite("moto_server", .serialized)
    struct OnMoto {
        @Test("AWS on moto_server", arguments: ReplayManifest.allCases)
        func aws(_ replayCase: ReplayManifest.Case) async throws {
            try await replay(replayCase, on: try await ReplayBackend.aws())
        }

        @Test("DynamoDB token store with KMS on moto_server", arguments: ReplayManifest.allCases)
        func dynamoDB(_ replayCase: ReplayManifest.Case) async throws {
            try await replay(replayCase, on: try await ReplayBackend.dynamoDB())
        }
    }
}

/// Replays one case. With `issuer`, every event's development token is replaced by the one
/// PyJWT signed from it and the functions run in `jwks` mode against PyJWT's keys.
private func replay(_ replayCase: ReplayManifest.Case, on backend: ReplayBackend, issuer: JWKSReplay? = nil) async throws {
    // Google's events are delivered when the replay runs, after the grants' proofs.
    let eventBytes = { (path: String) in
        path.hasPrefix("security-events/")
            ? SecurityEventDelivery.now(ReplayManifest.bytes(path)) : issuer?.rewrite(ReplayManifest.bytes(path)) ?? ReplayManifest.bytes(path)
    }
    let seed = ReplayManifest.shared.user
    try await backend.users.putUser(UserRecord(userID: seed.user_id, name: seed.name, email: seed.email, createdOn: seed.created_on))
    // A fake Google on loopback that knows the manifest's grants, and its client ID where
    // the functions read it.
    let google = try ReplayManifest.shared.fakeGoogle()
    defer { google.stop() }
    _ = try await backend.secrets.createSecret(
        name: "Google-OAuth-Client-ID", value: ReplayManifest.shared.clientIDSecret, tags: [:], clientRequestToken: SecretVersionID.random().rawValue
    )
    var backend = backend
    backend.environment["GOOGLE_TOKEN_ENDPOINT"] = google.tokenEndpoint
    backend.environment["GOOGLE_REVOKE_ENDPOINT"] = google.revokeEndpoint
    backend.environment["GOOGLE_RISC_CONFIGURATION_URL"] = google.riscConfigurationURL
    // A case that writes nothing leaves the set its set-up cases wrote: the run they are part of starts here.
    let setUpStarted = Date()
    for name in replayCase.before {
        let earlier = try #require(ReplayManifest.named(name), "unknown case \(name)")
        let result = try await FunctionProcess.run(earlier.function, event: eventBytes(earlier.event), environment: backend.environment.merging(issuer?.environment ?? [:]) { $1 })
        #expect(result.status == 0, "set-up case \(name) failed: \(result.stderr)")
    }

    var environment = backend.environment
    switch replayCase.environment {
    case "unreachable-aws": environment = try ReplayBackend.unreachableAWSEnvironment()
    case "apigateway": environment["PAYPULSE_AUTH_MODE"] = "apigateway"
    case nil: break
    case let other?: Issue.record("unknown environment '\(other)' in \(replayCase)")
    }
    environment.merge(issuer?.environment ?? [:]) { $1 }
    let started = Date()
    let result = try await FunctionProcess.run(replayCase.function, event: eventBytes(replayCase.event), environment: environment)
    let finished = Date()

    #expect(result.exitedNormally, "killed by signal \(result.status)")
    #expect(result.status == replayCase.exit, "exit status; stderr: \(result.stderr.suffix(500))")
    if let expected = (backend.listsOnlyDue ? replayCase.expected_indexed : nil) ?? replayCase.expected {
        #expect(ResponseMatching.mismatch(expected: ReplayManifest.bytes(expected), actual: result.stdout) == nil, "\(replayCase)")
        #expect(result.stdout.split(separator: "\n").count == 1, "exactly one response line on stdout")
    } else {
        #expect(result.stdout.isEmpty, "nothing on stdout for a malformed event")
        #expect(result.stderr.contains("error:"), "a clear error on stderr")
    }

    // Every credential of this case and the ones before it, and every credential shape.
    let scanner = SecretScanner.forEvents(([replayCase.event] + replayCase.before.compactMap { ReplayManifest.named($0)?.event }).map(eventBytes))
    let leaks = scanner.findings(in: result.stdout, source: "stdout") + scanner.findings(in: result.stderr, source: "stderr")
    #expect(leaks.isEmpty, "secrets in the output of \(replayCase): \(leaks)")
    #expect(!result.stderr.isEmpty, "trace logs were written to stderr")

    if let stored = replayCase.stored {
        try await checkStored(stored, backend: backend, window: min(setUpStarted, started).addingTimeInterval(-2)...finished.addingTimeInterval(2))
    } else if replayCase.before.isEmpty, expectedStatus(replayCase) ?? 400 >= 400 {
        // Refused requests store nothing.
        await #expect(throws: StoreError.notFound) { try await backend.grants.state(of: "user-1") }
    }
    if replayCase.function == "disconnect", expectedStatus(replayCase) == 200 {
        // Deleted recoverably: described with a deletion date, not gone.
        #expect(try await backend.grants.state(of: "user-1").deletionDate != nil)
    }
}

private func checkStored(_ expected: ReplayManifest.StoredExpectation, backend: ReplayBackend, window: ClosedRange<Date>) async throws {
    let value = try await backend.grants.read("user-1")
    let set = try GmailTokenSet.decode(value.value)
    if let access = expected.access_token { #expect(set.accessToken == access) }
    if let refresh = expected.refresh_token { #expect(set.refreshToken == refresh) }
    if let type = expected.token_type { #expect(set.tokenType == type) }
    if let scope = expected.scope { #expect(set.scope == scope) }
    if let email = expected.google_email { #expect(set.googleEmail == email) }
    if let status = expected.status { #expect(set.status.rawValue == status) }
    if let version = expected.version { #expect(set.version == version) }
    if let subject = expected.google_sub { #expect(set.googleSubject == subject) }
    if let verified = expected.verified { #expect(set.verified == verified) }
    if let expiresIn = expected.expires_in {
        #expect(Int(set.expiresAt.timeIntervalSince(set.updatedAt)) == expiresIn)
    }
    #expect(window.contains(set.updatedAt), "updated_at \(set.updatedAt) not within the run")
    let tags = try await backend.grants.state(of: "user-1").attributes
    // The expiry tag is the value's, or earlier after a refresh that renewed only the access
    // token (it writes no tags; the listing then reads the expiry from the write's date).
    #expect(TokenSetTags.stillDescribe(tags, set), "tags \(tags) describe the value")
    for (key, value) in expected.tags ?? [:] { #expect(tags[key] == value, "tag \(key)") }
}

/// The status code the case's expected response has, if it has one.
private func expectedStatus(_ replayCase: ReplayManifest.Case) -> Int? {
    guard let path = replayCase.expected,
          let json = try? JSONSerialization.jsonObject(with: ReplayManifest.bytes(path)) as? [String: Any] else { return nil }
    return json["statusCode"] as? Int
}
