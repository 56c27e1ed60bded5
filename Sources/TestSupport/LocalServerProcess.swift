import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A built `paypulse serve` run as a child process, the way a developer starts it: the
/// tests that talk to it over HTTP (replays, the generated client, the console in
/// Chromium) start one on a free port with a fresh embedded store.
package final class LocalServerProcess: Sendable {
    /// `http://127.0.0.1:<port>`.
    package let baseURL: String
    /// The store folder it was started on.
    package let stateDirectory: String
    /// Where its standard error (the access log) goes.
    package let logPath: String
    private let process: SpawnedProcess.Running

    /// Starts `paypulse` from `binaryDirectory` with `serve --port 0` and `arguments`, on a
    /// new embedded store, and waits until it says where it listens.
    /// - Parameters:
    ///   - binaryDirectory: The folder of the built executables.
    ///   - arguments: More `serve` arguments, e.g. `--fake-google`.
    ///   - environment: Variables added to a minimal environment.
    /// - Throws: ``SpawnedProcess/Failure`` when it does not start within two minutes (the
    ///   wait ends as soon as it says where it listens; a loaded machine can take many seconds).
    package init(binaryDirectory: URL = BuiltExecutables.directory, arguments: [String] = ["--fake-google"], environment: [String: String] = [:]) async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("paypulse-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        stateDirectory = scratch.appendingPathComponent("state").path
        logPath = scratch.appendingPathComponent("stderr").path
        let outputPath = scratch.appendingPathComponent("stdout").path
        let base = [
            "PAYPULSE_STORE": "embedded", "PAYPULSE_STATE_DIR": stateDirectory, "LOG_LEVEL": "trace",
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": NSTemporaryDirectory(),
        ]
        process = try SpawnedProcess.Running.start(
            [binaryDirectory.appendingPathComponent("paypulse").path, "serve", "--port", "0"] + arguments,
            environment: base.merging(environment) { _, new in new }, stdoutPath: outputPath, stderrPath: logPath
        )
        do {
            baseURL = try await process.awaitOutput(matching: #"http://127\.0\.0\.1:[0-9]+"#, in: outputPath, within: .seconds(120))
        } catch {
            let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            throw SpawnedProcess.Failure(description: "paypulse serve did not start: \(error); its log: \(log.suffix(800))")
        }
    }

    /// Everything it wrote to standard error so far.
    package var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Sends `signal` (SIGTERM unless told; SIGINT is Ctrl-C) and waits for it to end.
    /// - Returns: How it ended (a clean stop exits 0).
    @discardableResult
    package func stop(signal: Int32 = SIGTERM) throws -> SpawnedProcess.Exit {
        kill(process.pid, signal)
        return try process.wait()
    }

    /// Sends each of `signals` in turn and waits up to `limit` for it to end; one still
    /// running then is killed (SIGKILL), so a test of a stuck stop never hangs.
    /// - Returns: How it ended, or `nil` when it had to be killed.
    package func stop(signals: [Int32], within limit: Duration) throws -> SpawnedProcess.Exit? {
        let deadline = ContinuousClock.now + limit
        for signal in signals {
            kill(process.pid, signal)
            Thread.sleep(forTimeInterval: 0.2)
        }
        while ContinuousClock.now < deadline {
            if let exit = try process.exitIfEnded() { return exit }
            Thread.sleep(forTimeInterval: 0.05)
        }
        kill(process.pid, SIGKILL)
        _ = try process.wait()
        return nil
    }
}
