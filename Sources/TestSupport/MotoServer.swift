#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import PayPulseFakeGoogle
import PayPulseTransport

/// A `moto_server` on 127.0.0.1: the real peer for the AWS APIs in tests.
///
/// ``shared()`` uses the server named by `PAYPULSE_TEST_MOTO_ENDPOINT` (what `.ci/run` and
/// `make test` start) or launches one for this test process. ``launchPrivate()`` always
/// launches a new one, for suites that change server-wide state such as signature checks.
package final class MotoServer: Sendable {
    /// `http://127.0.0.1:<port>`.
    package let endpoint: String
    // The write end of the pipe whose closing ends the watcher shell and moto; only this
    // process holds it.
    private let lifeline: Int32?
    // moto's output, kept so a failed start can show it.
    private let logPath: String?

    private init(endpoint: String, lifeline: Int32? = nil, logPath: String? = nil) {
        self.endpoint = endpoint
        self.lifeline = lifeline
        self.logPath = logPath
    }

    deinit {
        if let lifeline { close(lifeline) }
        if let logPath { try? FileManager.default.removeItem(atPath: logPath) }
    }

    private static let sharedServer = Task<MotoServer, any Error> {
        if let endpoint = ProcessInfo.processInfo.environment["PAYPULSE_TEST_MOTO_ENDPOINT"], !endpoint.isEmpty {
            return MotoServer(endpoint: endpoint)
        }
        return try await launchPrivate()
    }

    /// The server shared by the whole test process.
    package static func shared() async throws -> MotoServer { try await sharedServer.value }

    /// Launches a new `moto_server` and waits until it answers. The server exits with the test
    /// process even if that process is killed.
    ///
    /// moto binds port 0 and the kernel picks a free port, which moto prints: choosing a port
    /// here and handing it over would race every other listener the tests open. The wait is
    /// event-driven: it ends when moto answers or when moto exits (then with its output).
    /// A start-up that takes longer than ``startupHangLimit`` counts as a hang.
    ///
    /// moto runs under scripts/moto-server.py, which handles one request at a time: plain
    /// moto lets two conditional writes on the same version both pass under load, and the
    /// compare-and-swap proofs need AWS's atomic conditions.
    package static func launchPrivate() async throws -> MotoServer {
        let launcher = BuiltExecutables.repositoryRoot.appendingPathComponent("scripts/moto-server.py").path
        let log = FileManager.default.temporaryDirectory
            .appendingPathComponent("paypulse-moto-\(UUID().uuidString).log").path
        // The watcher waits for end-of-file on fd 3 (this process's lifeline pipe), whose write
        // end only this process holds: when this process ends, however it ends, the kernel
        // closes it and the watcher kills moto. SIGKILL, since children inherit a blocked
        // signal mask. The shell itself waits for moto, so it exits if moto does. No output is
        // inherited, so `swift test` never waits on a pipe moto keeps open. posix_spawn, not
        // Foundation's Process (see SpawnedProcess).
        let script = "exec 3<&0; python3 \"$PAYPULSE_MOTO_LAUNCHER\" -H 127.0.0.1 -p 0 </dev/null >\"$PAYPULSE_MOTO_LOG\" 2>&1 & m=$!; "
            + "( cat <&3 >/dev/null; kill -9 $m 2>/dev/null ) & w=$!; exec 3<&-; "
            + "wait $m; s=$?; kill $w 2>/dev/null; exit $s"
        let environment = ProcessInfo.processInfo.environment.merging(["PAYPULSE_MOTO_LOG": log, "PAYPULSE_MOTO_LAUNCHER": launcher]) { $1 }
        let (readEnd, writeEnd) = try lifelinePipe()
        let watcher: SpawnedProcess.Running
        do {
            defer { close(readEnd) }
            watcher = try SpawnedProcess.Running.start(["/bin/sh", "-c", script], environment: environment, stdin: readEnd, discardOutput: true)
        } catch {
            close(writeEnd)
            throw error
        }
        let transport = CurlHTTPClient()
        let clock = ContinuousClock()
        let started = clock.now
        while clock.now - started < startupHangLimit {
            if let exit = try watcher.exitIfEnded() {
                close(writeEnd)
                let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                try? FileManager.default.removeItem(atPath: log)
                throw MotoServerError(message: "moto_server exited during start-up (\(exit.status.map { "status \($0)" } ?? "signal \(exit.signal ?? 0)")); "
                    + "is moto[server] installed for python3 (pip install \"moto[server]\")? Its output: \(output.suffix(2_000))")
            }
            if let port = announcedPort(inLogAt: log) {
                let endpoint = "http://127.0.0.1:\(port)"
                if let response = try? await transport.execute(HTTPRequest(method: "GET", url: endpoint + "/moto-api/", timeout: .seconds(5))),
                   response.status == 200 {
                    return MotoServer(endpoint: endpoint, lifeline: writeEnd, logPath: log)
                }
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        close(writeEnd)
        throw MotoServerError(message: "moto_server neither answered nor exited within \(startupHangLimit); output in \(log)")
    }

    /// A connected socket pair whose ends are close-on-exec from the start (Swift does not
    /// import `pipe2`), so no child spawned meanwhile by another thread inherits the write
    /// end and keeps moto alive. The watcher reads end-of-file once that end closes.
    private static func lifelinePipe() throws -> (read: Int32, write: Int32) {
        guard let ends = PortableSocket.closeOnExecPair() else { throw MotoServerError(message: "socketpair failed: errno \(errno)") }
        return (read: ends.0, write: ends.1)
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
package struct MotoServerError: Error, CustomStringConvertible {
    /// What went wrong.
    package let message: String
    package var description: String { message }
}

extension MotoServer {
    /// Runs a command with a moto_server it names to it as `PAYPULSE_TEST_MOTO_ENDPOINT`, and
    /// answers the command's exit status (128 + the signal when one killed it). The server is
    /// the one ``shared()`` would use: the caller's `PAYPULSE_TEST_MOTO_ENDPOINT` when set,
    /// else one launched here, which ends with this process however it ends.
    ///
    /// The `with-moto` executable (and `scripts/with-moto.sh`, which builds and runs it) is
    /// this function, so the suites and the make targets launch moto one way.
    /// - Parameter command: the program (looked up on `PATH`) and its arguments.
    /// - Throws: ``MotoServerError`` when no server starts, ``SpawnedProcess/Failure`` when
    ///   the command cannot be run.
    package static func run(command: [String]) async throws -> Int32 {
        let server = try await shared()
        var environment = ProcessInfo.processInfo.environment
        if environment["PAYPULSE_TEST_MOTO_ENDPOINT", default: ""].isEmpty {
            environment["PAYPULSE_TEST_MOTO_ENDPOINT"] = server.endpoint
            FileHandle.standardError.write(Data("with-moto: moto_server on \(server.endpoint)\n".utf8))
        }
        let exit = try SpawnedProcess.Running.start(command, environment: environment).wait()
        // Keeps the server (and so moto) alive until the command has ended.
        return withExtendedLifetime(server) { exit.status ?? 128 + (exit.signal ?? 0) }
    }
}
