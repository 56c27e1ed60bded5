import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs one built function executable as a fresh process (event on standard input,
/// response on standard output, logs on standard error), timed on the monotonic clock.
///
/// `posix_spawn` and `waitpid` rather than Foundation's `Process`: many worker threads
/// start processes at once, and the wait status tells an exit from a kill by a signal.
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

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, input, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o600)

        let argv: [UnsafeMutablePointer<CChar>?] = [strdup(binary), nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }

        var pid = pid_t()
        let started = ContinuousClock.now
        let spawned = posix_spawn(&pid, binary, &actions, nil, argv, envp)
        guard spawned == 0 else { throw SoakError("posix_spawn \(function) failed: errno \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { throw SoakError("waitpid \(function) failed: errno \(errno)") }
        }
        let ended = ContinuousClock.now
        // WIFEXITED / WTERMSIG are macros Swift does not import: the low 7 bits are the signal.
        let signal = status & 0x7F
        return Result(
            started: started, ended: ended,
            exitStatus: signal == 0 ? (status >> 8) & 0xFF : nil, signal: signal == 0 ? nil : signal,
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
