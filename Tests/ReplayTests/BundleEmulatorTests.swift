import Foundation
import PayPulseResponseMatching
import PayPulseTestSupport
import PayPulseTransport
import Testing

/// Every Lambda bundle under the real AWS Lambda Runtime Interface Emulator (the SAM CLI's
/// `aws-lambda-rie`), run by `make test-deploy` (scripts/test-bundles-rie.sh names the
/// emulator and the bundles in `PAYPULSE_RIE` and `PAYPULSE_BUNDLES`); skipped without them.
///
/// Each bundle's zip is unpacked into a fresh folder and its `bootstrap` runs under the
/// emulator; events are posted to `/2015-03-31/functions/function/invocations`. Per function:
/// - several invocations, good and bad, are served by one runtime process (the same pid,
///   alive at the end), as the emulator's log says too (one `INIT START`);
/// - a malformed event comes back as `Runtime.InvalidEvent` through `/error`, and the next
///   good one still works; token-refresh's failing handler (an invalid shard) as
///   `Runtime.HandlerFailed`;
/// - every good answer matches its expected file in events/ (the bearer token is minted by
///   `paypulse jwt` with a key of this run's, since inside Lambda the development key is refused);
/// - the logs are JSON lines carrying the request id.
/// And a start-up failure (`PAYPULSE_STORE=bogus`) comes back through `/runtime/init/error`.
///
/// The functions share one embedded store, in order: store-tokens, user-profile, token-refresh,
/// disconnect. Google is the Swift stand-in over HTTPS (scripts/fake-google-tls.sh, the
/// manifest's grants, trusted through `PAYPULSE_CA_BUNDLE`). What no function writes (the
/// user, the client-ID secret) is seeded once store-tokens' first invocation made the store.
@Suite("Lambda bundles under the Runtime Interface Emulator", .enabled(if: EmulatorTools.named != nil))
struct BundleEmulatorTests {
    static let clientID = "bundle-test-client.apps.googleusercontent.com"
    static let tokenRequest = "POST /token client_id,grant_type,refresh_token"

    @Test("four functions, each one runtime process over good and bad events, and a start-up failure")
    func bundlesUnderTheEmulator() async throws {
        let (rie, bundles) = try #require(EmulatorTools.named)
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("paypulse-rie-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: work) }
        let key = (0..<4).map { _ in UUID().uuidString }.joined()
        let base = ["PATH": "/usr/bin:/bin", "HOME": work, "PAYPULSE_STORE": "embedded", "PAYPULSE_STATE_DIR": "\(work)/state", "PAYPULSE_JWT_SECRET": key]
        let minted = try await FunctionProcess.cli(
            ["jwt", "--sub", "user-1", "--name", "Jane Smith", "--email", "jane@example.com", "--ttl", "7200"],
            environment: base.merging(["PAYPULSE_STATE_DIR": "\(work)/jwt-state"]) { $1 }
        )
        let events = EmulatedEvents(bearer: minted.stdout.trimmingCharacters(in: .whitespacesAndNewlines))

        let google = try GoogleOverTLS(directory: "\(work)/tls", clientID: Self.clientID)
        defer { google.stop() }
        let googleURL = try await google.url()
        let trust = ["PAYPULSE_CA_BUNDLE": "\(work)/tls/cert.pem"]
        func run(_ function: String, _ extra: [String: String] = [:], _ plan: (Emulator) async throws -> Void) async throws {
            let emulator = try await Emulator.start(rie: rie, bundle: "\(bundles)/\(function).zip", directory: "\(work)/\(function)", environment: base.merging(extra) { $1 })
            defer { emulator.close() }
            try await plan(emulator)
            try emulator.expectOneRuntime(function)
        }

        try await run("store-tokens", ["GOOGLE_TOKEN_ENDPOINT": "\(googleURL)/token"].merging(trust) { $1 }) { emulator in
            try await emulator.expectAnswer(events, "store-tokens/v2-missing-bearer-token")
            #expect(FileManager.default.fileExists(atPath: "\(work)/state/paypulse.sqlite3"), "its first invocation made the store")
            let seeded = try await FunctionProcess.cli(
                ["seed", "--manifest", ReplayManifest.eventsDirectory.appendingPathComponent("manifest.json").path, "--client-id", Self.clientID], environment: base
            )
            #expect(seeded.status == 0, "\(seeded.stderr)")
            try await emulator.expectError(Array(#""hello""#.utf8), "Runtime.InvalidEvent")
            try await emulator.expectAnswer(events, "store-tokens/v2-json-first-connection")
            try await emulator.expectError(Array("{}".utf8), "Runtime.InvalidEvent")
            try await emulator.expectAnswer(events, "store-tokens/v2-missing-bearer-token")
        }
        #expect(google.requests(Self.tokenRequest) == 1, "store-tokens proves the first connection's grant once")

        try await run("user-profile") { emulator in
            try await emulator.expectAnswer(events, "user-profile/v2-connected")
            try await emulator.expectError(Array("hello".utf8), "Runtime.InvalidEvent")
            try await emulator.expectError(try events.event("token-refresh/scheduled-not-yet-due"), "Runtime.InvalidEvent")
            try await emulator.expectAnswer(events, "user-profile/v2-connected")
        }

        try await run("token-refresh", ["GOOGLE_TOKEN_ENDPOINT": "\(googleURL)/token"].merging(trust) { $1 }) { emulator in
            try await emulator.expectAnswer(events, "token-refresh/scheduled-not-yet-due")
            try await emulator.expectError(try events.event("token-refresh/scheduled-invalid-shard"), "Runtime.HandlerFailed")
            try await emulator.expectError(Array("{}".utf8), "Runtime.InvalidEvent")
            try await emulator.expectAnswer(events, "token-refresh/scheduled-not-yet-due")
        }
        #expect(google.requests(Self.tokenRequest) == 1, "token-refresh refreshed no grant, since none was due")

        try await run("disconnect", ["GOOGLE_REVOKE_ENDPOINT": "\(googleURL)/revoke"].merging(trust) { $1 }) { emulator in
            try await emulator.expectAnswer(events, "disconnect/v2-disconnect")
            try await emulator.expectError(Array("hello".utf8), "Runtime.InvalidEvent")
            try await emulator.expectAnswer(events, "disconnect/v2-twice")
        }
        #expect(google.requests("POST /revoke token") == 1, "disconnect revokes once")

        // A start-up failure goes to /runtime/init/error; the emulator answers 502 with it.
        let failing = try await Emulator.start(
            rie: rie, bundle: "\(bundles)/user-profile.zip", directory: "\(work)/init-error", environment: base.merging(["PAYPULSE_STORE": "bogus"]) { $1 }
        )
        defer { failing.close() }
        let (status, body) = try await failing.invoke(try events.event("user-profile/v2-connected"))
        let error = EmulatedEvents.object(body)
        #expect(status == 502 && error["errorType"] as? String == "Runtime.InitError", "\(status) \(body)")
        #expect((error["errorMessage"] as? String)?.contains("PAYPULSE_STORE") == true, "\(body)")
    }
}

/// The emulator and the bundles, as scripts/test-bundles-rie.sh names them.
enum EmulatorTools {
    static let named: (rie: String, bundles: String)? = {
        let environment = ProcessInfo.processInfo.environment
        guard let rie = environment["PAYPULSE_RIE"], let bundles = environment["PAYPULSE_BUNDLES"] else { return nil }
        return (rie, bundles)
    }()
}

/// The events of events/, each bearer token replaced by this run's.
struct EmulatedEvents {
    let bearer: String

    func event(_ name: String) throws -> [UInt8] {
        var document = try #require(try JSONSerialization.jsonObject(with: ReplayManifest.bytes(name + ".json")) as? [String: Any])
        if var headers = document["headers"] as? [String: Any] {
            for (header, value) in headers where header.lowercased() == "authorization" && (value as? String)?.hasPrefix("Bearer ") == true {
                headers[header] = "Bearer \(bearer)"
            }
            document["headers"] = headers
        }
        return Array(try JSONSerialization.data(withJSONObject: document))
    }

    /// `text` as a JSON object, or empty when it is none.
    static func object(_ text: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
    }
}

/// One `aws-lambda-rie` process running one unpacked bundle.
final class Emulator: @unchecked Sendable {
    private let process: SpawnedProcess.Running
    private let port: Int
    private let logPath: String
    private var runtimesSeen: Set<Int32> = []
    private var invocations = 0
    private static let transport = CurlHTTPClient()

    private init(process: SpawnedProcess.Running, port: Int, logPath: String) {
        (self.process, self.port, self.logPath) = (process, port, logPath)
    }

    /// Unpacks `bundle` into `directory` and starts the emulator on it. The emulator cannot pick
    /// its own ports and say which: a port free here may be taken by a parallel test before it
    /// binds, and it then exits at once ("address already in use"), so that start is retried.
    static func start(rie: String, bundle: String, directory: String, environment: [String: String]) async throws -> Emulator {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let unzip = try SpawnedProcess.Running.start(["/usr/bin/unzip", "-q", bundle, "-d", directory], environment: [:], discardOutput: true)
        let unzipped = try await SpawnedProcess.offThePool { try unzip.wait() }
        guard unzipped.status == 0 else { throw ReplayError("unzip \(bundle) failed: \(unzipped)") }
        let logPath = "\(directory)/rie.log"
        var attempt = 0
        while true {
            attempt += 1
            let port = try RefusingLoopbackPort.free(), runtimePort = try RefusingLoopbackPort.free()
            // Started from the bundle's folder, its output and errors in one log, as Lambda keeps them.
            let running = try SpawnedProcess.Running.start(
                ["/bin/sh", "-c", #"cd "$1" && shift && exec "$@" >rie.log 2>&1"#, "sh", directory, rie,
                 "--runtime-interface-emulator-address", "127.0.0.1:\(port)", "--runtime-api-address", "127.0.0.1:\(runtimePort)", "\(directory)/bootstrap"],
                environment: environment
            )
            if try await listens(running, port: port) { return Emulator(process: running, port: port, logPath: logPath) }
            running.terminate()
            _ = try? await SpawnedProcess.offThePool { try running.wait() }
            let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            guard log.contains("address already in use"), attempt < 5 else { throw ReplayError("the emulator did not listen; its log:\n\(log)") }
        }
    }

    /// Whether the emulator listens on `port`: a connection succeeds and it still runs a moment
    /// later (one that lost its port exits; the listener was then another's).
    private static func listens(_ running: SpawnedProcess.Running, port: Int) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(60)
        while try running.exitIfEnded() == nil, ContinuousClock.now < deadline {
            if RefusingLoopbackPort.accepts(port: port) {
                try await Task.sleep(for: .milliseconds(300))
                return try running.exitIfEnded() == nil
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    func invoke(_ payload: [UInt8]) async throws -> (status: Int, body: String) {
        let response = try await Self.transport.execute(HTTPRequest(
            method: "POST", url: "http://127.0.0.1:\(port)/2015-03-31/functions/function/invocations", body: payload, timeout: .seconds(300)
        ))
        invocations += 1
        runtimesSeen.formUnion(runtimes())
        return (response.status, response.bodyText)
    }

    /// events/NAME.json answered as events/NAME.expected.json says.
    func expectAnswer(_ events: EmulatedEvents, _ name: String) async throws {
        let (status, body) = try await invoke(try events.event(name))
        let mismatch = status == 200 ? ResponseMatching.mismatch(expected: ReplayManifest.bytes(name + ".expected.json"), actual: body) : "HTTP \(status)"
        #expect(mismatch == nil, "\(name): \(mismatch ?? "")\n\(body.prefix(500))\nemulator log:\n\(log.suffix(3000))")
    }

    /// `payload` refused through the runtime's `/error` as `errorType`.
    func expectError(_ payload: [UInt8], _ errorType: String) async throws {
        let (status, body) = try await invoke(payload)
        #expect(status == 200 && EmulatedEvents.object(body)["errorType"] as? String == errorType,
                "expected \(errorType) through /error, got HTTP \(status): \(body.prefix(500))\nemulator log:\n\(log.suffix(3000))")
    }

    /// One runtime process served every invocation and still runs; the log says one start, each
    /// invocation, and JSON lines carrying the request id.
    func expectOneRuntime(_ function: String) throws {
        #expect(runtimesSeen.count == 1 && runtimes() == runtimesSeen, "\(function): runtimes \(runtimesSeen.sorted()), alive \(runtimes().sorted())")
        let log = log
        #expect(log.components(separatedBy: "INIT START").count == 2, "\(function): one start expected:\n\(log.suffix(3000))")
        #expect(log.components(separatedBy: "INVOKE START").count == invocations + 1, "\(function): \(invocations) invocations expected")
        let tagged = log.split(separator: "\n").map { EmulatedEvents.object(String($0)) }.filter { $0["requestId"] != nil && $0["level"] != nil && $0["message"] != nil }
        #expect(!tagged.isEmpty, "\(function): no JSON log line with a requestId:\n\(log.suffix(3000))")
    }

    /// The emulator's children: the runtime (bootstrap, exec'd into the executable).
    private func runtimes() -> Set<Int32> {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.pid)/task")) ?? []
        return Set(tasks.flatMap { task in
            ((try? String(contentsOfFile: "/proc/\(process.pid)/task/\(task)/children", encoding: .utf8)) ?? "").split(separator: " ").compactMap { Int32($0) }
        })
    }

    /// Stops the emulator, then any runtime it started that outlived it.
    func close() {
        process.terminate()
        _ = try? process.wait()
        for pid in runtimesSeen { kill(pid, SIGKILL) }
    }
}

/// Google's token and revoke endpoints over HTTPS (scripts/fake-google-tls.sh), with the log
/// of the requests it answered.
struct GoogleOverTLS {
    let directory: String
    private let process: SpawnedProcess.Running

    init(directory: String, clientID: String) throws {
        self.directory = directory
        let script = BuiltExecutables.repositoryRoot.appendingPathComponent("scripts/fake-google-tls.sh").path
        process = try SpawnedProcess.Running.start(
            [script, BuiltExecutables.directory.appendingPathComponent("paypulse").path, directory, clientID],
            environment: ProcessInfo.processInfo.environment, discardOutput: true
        )
    }

    /// Its address, once it listens.
    func url() async throws -> String {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline, try process.exitIfEnded() == nil {
            if let url = try? String(contentsOfFile: "\(directory)/url", encoding: .utf8) { return url.trimmingCharacters(in: .whitespacesAndNewlines) }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw ReplayError("the HTTPS stand-in for Google did not start")
    }

    /// How many answered requests read `line` ("METHOD PATH field,names").
    func requests(_ line: String) -> Int {
        ((try? String(contentsOfFile: "\(directory)/requests.log", encoding: .utf8)) ?? "").split(separator: "\n").filter { $0 == line }.count
    }

    func stop() {
        process.terminate()
        _ = try? process.wait()
    }
}
