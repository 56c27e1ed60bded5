import Foundation
import PayPulsePorts
import PayPulseAWS
import PayPulseTestSupport
import Testing

/// Every event (the `events/` cases, which include the token attacks and the body
/// limits, plus the generated limit cases and credential-laden extras) through every
/// function executable's Lambda Runtime API loop at debug level, on the embedded store
/// and on a private moto with the fake Google, with JSON and with text logs: no access
/// token, refresh token, JWT, id_token, client secret, AWS secret key, SigV4 signature or
/// Authorization value may appear in stdout, stderr, a log line or a posted response or
/// error. Stdin mode is scanned the same way by `EventReplayTests` (every case, trace
/// level, both stores) and `InputLimitTests`; state-file modes are checked by
/// `EmbeddedTests/FilePermissionTests`.
@Suite("Secret hygiene of every output", .serialized)
struct SecretHygieneTests {
    static let functions = ["store-tokens", "user-profile", "token-refresh", "disconnect"]
    private static let moto = Task { try await MotoServer.launchPrivate() }

    /// The inputs, in manifest order (so earlier cases leave state later ones use). The
    /// Runtime API carries events as JSON text: bytes that are not UTF-8 cannot be handed
    /// out that way, and events over 6 MB are over Lambda's own limit.
    private static func inputs() async throws -> [(name: String, bytes: Data)] {
        let manifest = ReplayManifest.allCases.map { (name: "\($0.function)/\($0.name)", bytes: ReplayManifest.bytes($0.event)) }
        let generated = try await GeneratedEvents.limits() + GeneratedEvents.hygieneExtras()
        return (manifest + generated.map { (name: "generated \($0)", bytes: $0.bytes) })
            .filter { String(data: $0.bytes, encoding: .utf8) != nil && $0.bytes.count < 6_000_000 }
    }

    @Test("Lambda loop: every event through every function", arguments: [
        ("embedded", "JSON"), ("embedded", "Text"), ("moto", "JSON"), ("moto", "Text"),
    ])
    func lambdaLoop(backendName: String, logFormat: String) async throws {
        // Its own moto: the replay suite resets the shared one between its cases.
        let backend = if backendName == "embedded" {
            try ReplayBackend.embedded()
        } else {
            try await ReplayBackend.aws(on: try await Self.moto.value)
        }
        defer { backend.cleanUp() }
        let (environment, google) = try await prepare(backend, logFormat: logFormat)
        defer { google.stop() }
        let inputs = try await Self.inputs()
        var scanner = SecretScanner.forEvents(inputs.map(\.bytes))
        // The OAuth client ID the functions read from their secret and send to Google.
        scanner.add(google.clientID)
        #expect(scanner.secrets.contains(google.clientID))
        var tally = Tally()
        for function in Self.functions {
            let result = try await LambdaLoopRun.run(function, events: inputs.map(\.bytes), environment: environment)
            #expect(result.posted.count == inputs.count, "\(function) answered \(result.posted.count) of \(inputs.count) invocations")
            if logFormat == "JSON" {
                #expect(result.stderr.contains(#""requestId""#), "\(function) wrote JSON log lines")
            }
            for (index, posted) in result.posted.enumerated() {
                let name = index < inputs.count ? inputs[index].name : "?"
                tally.scan(posted, source: "\(backendName) \(function) <- \(name): posted", with: scanner)
            }
            tally.scan(result.stdout, source: "\(backendName) \(function): stdout", with: scanner)
            tally.scan(result.stderr, source: "\(backendName) \(function): stderr", with: scanner)
        }
        #expect(google.tokenCalls > 0 && google.revokeCalls > 0, "the runs refreshed and revoked at the fake Google")
        #expect(tally.findings.isEmpty, "\(tally.findings.count) leaks:\n\(tally.findings.prefix(40).map(\.description).joined(separator: "\n"))")
        print("SecretHygieneTests[lambda loop, \(backendName), \(logFormat) logs]: \(inputs.count) events x \(Self.functions.count) functions, "
            + "\(tally.outputs) outputs scanned, \(tally.bytes) bytes, \(scanner.secrets.count) known credentials "
            + "+ \(SecretScanner.shapes.count) shapes, \(tally.findings.count) occurrences")
    }

    @Test("the scanner finds each kind of credential and reports it by fingerprint only")
    func scannerFindsLeaks() throws {
        let scanner = SecretScanner.forEvents(ReplayManifest.allCases.map { ReplayManifest.bytes($0.event) })
        let jwt = try #require(ReplayManifest.allCases.flatMap(\.secrets).first { $0.hasPrefix("eyJ") })
        let leaks = [
            "info handled request token=\(jwt)",
            "debug refresh access=ya29.a0-never-seen-before",
            "debug refresh token 1//0g-never-seen-before",
            "trace header authorization=Bearer abcdefgh12345678",
            "trace AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/secretsmanager/aws4_request",
            "trace Signature=" + String(repeating: "ab", count: 32),
            "key=\(AWSTestClients.motoCredentials.secretAccessKey)",
            "client_secret=GOCSPX-never-seen",
        ]
        for leak in leaks {
            let findings = scanner.findings(in: leak, source: "self-test")
            #expect(!findings.isEmpty, "missed: \(leak.prefix(40))")
            for finding in findings {
                #expect(!finding.description.contains("never-seen") && !finding.description.contains(jwt), "a finding carries the secret")
            }
        }
        #expect(scanner.findings(in: #"{"statusCode":401,"headers":{"www-authenticate":"Bearer"}} info handled request status=201"#, source: "self-test").isEmpty)
    }

    /// Seeds user-1 and the Google client ID, starts the fake Google with the manifest's
    /// grants, and returns the debug-level environment pointing at both.
    private func prepare(_ backend: ReplayBackend, logFormat: String) async throws -> ([String: String], FakeGoogleServer) {
        let seed = ReplayManifest.shared.user
        try await backend.users.putUser(UserRecord(userID: seed.user_id, name: seed.name, email: seed.email, createdOn: seed.created_on))
        let google = try ReplayManifest.shared.fakeGoogle()
            for grant in ["1//hygiene-refresh-json", "1//hygiene-refresh-form"] {
            google.addGrant(refreshToken: grant, scope: "openid https://www.googleapis.com/auth/gmail.readonly")
        }
        _ = try await backend.secrets.createSecret(
            name: "Google-OAuth-Client-ID", value: ReplayManifest.shared.clientIDSecret, tags: [:], clientRequestToken: SecretVersionID.random().rawValue
        )
        var environment = backend.environment
        environment["LOG_LEVEL"] = "debug"
        environment["AWS_LAMBDA_LOG_LEVEL"] = "DEBUG"
        environment["AWS_LAMBDA_LOG_FORMAT"] = logFormat
        environment["GOOGLE_TOKEN_ENDPOINT"] = google.tokenEndpoint
        environment["GOOGLE_REVOKE_ENDPOINT"] = google.revokeEndpoint
        // Every grant is due, so the refresh runs call Google and write back.
        environment["REFRESH_WINDOW_SECONDS"] = "86400"
        return (environment, google)
    }
}

/// Outputs scanned, their bytes, and what was found.
struct Tally {
    var outputs = 0
    var bytes = 0
    var findings: [SecretScanner.Finding] = []

    mutating func scan(_ text: String, source: String, with scanner: SecretScanner) {
        outputs += 1
        bytes += text.utf8.count
        findings += scanner.findings(in: text, source: source)
    }
}
