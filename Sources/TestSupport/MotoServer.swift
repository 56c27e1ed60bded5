import Foundation
import PayPulseTransport
#if canImport(Glibc)
import Glibc
#endif

/// A `moto_server` on 127.0.0.1: the real peer for the AWS APIs in tests.
///
/// ``shared()`` uses the server named by `PAYPULSE_TEST_MOTO_ENDPOINT` (what `.ci/run` and
/// `make test` start) or launches one for this test process. ``launchPrivate()`` always
/// launches a new one, for suites that change server-wide state such as signature checks.
public final class MotoServer: Sendable {
    /// `http://127.0.0.1:<port>`.
    public let endpoint: String
    // The watcher process and the pipe whose closing ends it (and moto).
    private let process: Process?
    private let lifeline: Pipe?
    // moto's output, kept so a failed start can show it.
    private let logPath: String?

    private init(endpoint: String, process: Process? = nil, lifeline: Pipe? = nil, logPath: String? = nil) {
        self.endpoint = endpoint
        self.process = process
        self.lifeline = lifeline
        self.logPath = logPath
    }

    deinit {
        try? lifeline?.fileHandleForWriting.close()
        if let logPath { try? FileManager.default.removeItem(atPath: logPath) }
    }

    private static let sharedServer = Task<MotoServer, any Error> {
        if let endpoint = ProcessInfo.processInfo.environment["PAYPULSE_TEST_MOTO_ENDPOINT"], !endpoint.isEmpty {
            return MotoServer(endpoint: endpoint)
        }
        return try await launchPrivate()
    }

    /// The server shared by the whole test process.
    public static func shared() async throws -> MotoServer { try await sharedServer.value }

    /// Launches a new `moto_server` and waits until it answers. The server exits with the test
    /// process even if that process is killed.
    ///
    /// moto binds port 0 and the kernel picks a free port, which moto prints: choosing a port
    /// here and handing it over would race every other listener the tests open. The wait is
    /// event-driven: it ends when moto answers or when moto exits (then with its output).
    /// A start-up that takes longer than ``startupHangLimit`` counts as a hang.
    public static func launchPrivate() async throws -> MotoServer {
        let log = FileManager.default.temporaryDirectory
            .appendingPathComponent("paypulse-moto-\(UUID().uuidString).log").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        // The watcher waits for end-of-file on fd 3 (this process's lifeline pipe), whose write
        // end only this process holds: when this process ends, however it ends, the kernel
        // closes it and the watcher kills moto. SIGKILL, since children inherit a blocked
        // signal mask. The shell itself waits for moto, so it exits if moto does. No output is
        // inherited, so `swift test` never waits on a pipe moto keeps open.
        process.arguments = [
            "-c",
            "exec 3<&0; if command -v moto_server >/dev/null; then set -- moto_server; else set -- python3 -m moto.server; fi; "
                + "\"$@\" -H 127.0.0.1 -p 0 </dev/null >\"$PAYPULSE_MOTO_LOG\" 2>&1 & m=$!; "
                + "( cat <&3 >/dev/null; kill -9 $m 2>/dev/null ) & w=$!; exec 3<&-; "
                + "wait $m; s=$?; kill $w 2>/dev/null; exit $s",
        ]
        process.environment = ProcessInfo.processInfo.environment.merging(["PAYPULSE_MOTO_LOG": log]) { $1 }
        let lifeline = Pipe()
        process.standardInput = lifeline
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let transport = CurlHTTPClient()
        let clock = ContinuousClock()
        let started = clock.now
        while clock.now - started < startupHangLimit {
            guard process.isRunning else {
                let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                try? FileManager.default.removeItem(atPath: log)
                throw MotoServerError(message: "moto_server exited during start-up (status \(process.terminationStatus)); "
                    + "is moto[server] installed (pip install \"moto[server]\")? Its output: \(output.suffix(2_000))")
            }
            if let port = announcedPort(inLogAt: log) {
                let endpoint = "http://127.0.0.1:\(port)"
                if let response = try? await transport.execute(HTTPRequest(method: "GET", url: endpoint + "/moto-api/", timeout: .seconds(5))),
                   response.status == 200 {
                    return MotoServer(endpoint: endpoint, process: process, lifeline: lifeline, logPath: log)
                }
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        try? lifeline.fileHandleForWriting.close()
        throw MotoServerError(message: "moto_server neither answered nor exited within \(startupHangLimit); output in \(log)")
    }

    /// How long a start-up may take before it counts as a hang rather than a slow machine.
    /// Generous on purpose: under the full suite on two shared cores, several Python servers
    /// import moto at once.
    static let startupHangLimit = Duration.seconds(600)

    /// The port in moto's "Running on http://127.0.0.1:PORT" line, once it is written.
    static func announcedPort(inLogAt path: String) -> Int? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
              let marker = text.range(of: "Running on http://127.0.0.1:") else { return nil }
        let digits = text[marker.upperBound...].prefix { $0.isASCII && $0.isNumber }
        return Int(digits)
    }
}

/// Why a moto server could not be used.
public struct MotoServerError: Error, CustomStringConvertible {
    /// What went wrong.
    public let message: String
    public var description: String { message }
}
