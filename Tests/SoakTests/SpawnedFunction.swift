import Foundation
import PayPulseTestSupport

/// Runs one built function executable as a fresh process (event on standard input,
/// response on standard output, logs on standard error), timed on the monotonic clock.
///
/// Through ``SpawnedProcess`` (posix_spawn and waitpid): many worker threads start
/// processes at once, and the wait status tells an exit from a kill by a signal.
struct SpawnedFunction {
    /// What one run gave.
    struct Result: Sendable {
        var started: ContinuousClock.Instant
        var ended: ContinuousClock.Instant
        /// The exit status, or `nil` when the process was killed by a signal.
        var exitStatus: Int32?
        /// The signal that killed it, if one did.
        var signal: Int32?
        var stdout: String
        var stderr: String
    }

    /// The folder of the built executables (`.build/debug` beside the test runner).
    static let binaryDirectory: URL = {
        let runner = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        if FileManager.default.isExecutableFile(atPath: runner.appendingPathComponent("store-tokens").path) { return runner }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/debug")
    }()

    /// A scratch folder of one worker: its event and output files, reused run after run.
    let scratch: URL

    init(scratch: URL) throws {
        self.scratch = scratch
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    /// Runs `function` on `event` with exactly `environment` and waits for it (blocking the
    /// calling thread, which must not be a concurrency-pool thread).
    func run(_ function: String, event: Data, environment: [String: String]) throws -> Result {
        let binary = Self.binaryDirectory.appendingPathComponent(function).path
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw SoakError("\(binary) is not built; run `swift build` first (make test does)")
        }
        let input = scratch.appendingPathComponent("stdin").path
        let output = scratch.appendingPathComponent("stdout").path
        let errors = scratch.appendingPathComponent("stderr").path
        try event.write(to: URL(fileURLWithPath: input))

        let started = ContinuousClock.now
        let exit: SpawnedProcess.Exit
        do {
            exit = try SpawnedProcess.run(binary, environment: environment, stdin: input, stdout: output, stderr: errors)
        } catch {
            throw SoakError("\(function): \(error)")
        }
        let ended = ContinuousClock.now
        return Result(
            started: started, ended: ended,
            exitStatus: exit.status, signal: exit.signal,
            stdout: (try? String(contentsOfFile: output, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        )
    }
}

/// A soak set-up or harness failure (not an invariant violation).
struct SoakError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
