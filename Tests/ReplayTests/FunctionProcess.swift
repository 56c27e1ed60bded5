import Foundation
import PayPulseTestSupport

/// Runs a built function executable on one event, the way a developer or CI does:
/// event on standard input, response on standard output, logs on standard error.
enum FunctionProcess {
    struct Result {
        var stdout: String
        var stderr: String
        /// The exit status, or the signal number when ``exitedNormally`` is false.
        var status: Int32
        /// Whether the process exited (rather than being killed by a signal).
        var exitedNormally: Bool
    }

    /// The folder holding the built executables.
    static var binaryDirectory: URL { BuiltExecutables.directory }

    /// Runs `function` on `event`, waiting on a thread of its own (``SpawnedProcess/offThePool(_:)``).
    static func run(_ function: String, event: Data, environment: [String: String]) async throws -> Result {
        try await SpawnedProcess.offThePool { try runBlocking(function, event: event, environment: environment) }
    }

    /// ``run(_:event:environment:)`` blocking the calling thread: for callers that are not on the
    /// concurrency runtime's threads (a scripted server's handler).
    static func runBlocking(_ function: String, event: Data, environment: [String: String]) throws -> Result {
        let binary = binaryDirectory.appendingPathComponent(function)
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw ReplayError("\(binary.path) is not built; run `swift build` first (make test does)")
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("replay-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let input = scratch.appendingPathComponent("stdin"), output = scratch.appendingPathComponent("stdout"), errors = scratch.appendingPathComponent("stderr")
        try event.write(to: input)
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)

        // Not Foundation's Process: its run() now and then crashes a process that starts
        // many children (see SpawnedProcess).
        let exit = try SpawnedProcess.run(binary.path, environment: environment, stdin: input.path, stdout: output.path, stderr: errors.path)
        return Result(
            stdout: String(decoding: try Data(contentsOf: output), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: errors), as: UTF8.self),
            status: exit.status ?? exit.signal ?? -1,
            exitedNormally: exit.status != nil
        )
    }

    /// Runs the built `paypulse` CLI with `arguments` and only `environment`.
    static func cli(_ arguments: [String], environment: [String: String]) async throws -> Result {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let output = scratch.appendingPathComponent("stdout").path, errors = scratch.appendingPathComponent("stderr").path
        let running = try SpawnedProcess.Running.start(
            [binaryDirectory.appendingPathComponent("paypulse").path] + arguments, environment: environment, stdoutPath: output, stderrPath: errors
        )
        let exit = try await SpawnedProcess.offThePool { try running.wait() }
        return Result(
            stdout: (try? String(contentsOfFile: output, encoding: .utf8)) ?? "", stderr: (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "",
            status: exit.status ?? exit.signal ?? -1, exitedNormally: exit.status != nil
        )
    }
}

struct ReplayError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
