import Foundation
import PayPulseTestSupport

/// Runs one built function in Lambda Runtime API mode against a scripted Runtime API on
/// loopback that hands out `events` one by one, and collects what came back: the posted
/// responses and errors, and the process's stdout and stderr (JSON log lines).
enum LambdaLoopRun {
    struct Result {
        /// Bodies posted to `/response` or `/error`, in order.
        var posted: [String]
        var stdout: String
        var stderr: String
    }

    static func run(_ function: String, events: [Data], environment: [String: String]) async throws -> Result {
        let queue = EventQueue(events)
        let api = try ScriptedHTTPServer { _, request in
            if request.target.hasSuffix("/runtime/invocation/next") {
                guard let next = queue.next() else { return .stall }
                let (index, event) = next
                return .respond(status: 200, headers: [
                    "Lambda-Runtime-Aws-Request-Id": "hygiene-\(index)",
                    "Lambda-Runtime-Deadline-Ms": String(Int64(Date().timeIntervalSince1970 * 1000) + 600_000),
                    "Lambda-Runtime-Invoked-Function-Arn": "arn:aws:lambda:us-east-1:123456789012:function:\(function)",
                    "Lambda-Runtime-Trace-Id": "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1",
                    "Content-Type": "application/json",
                ], body: String(decoding: event, as: UTF8.self))
            }
            return .respond(status: 202, headers: ["Content-Type": "application/json"], body: #"{"status":"OK"}"#)
        }
        defer { api.stop() }

        let binary = FunctionProcess.binaryDirectory.appendingPathComponent(function)
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("lambda-loop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let output = scratch.appendingPathComponent("stdout"), errors = scratch.appendingPathComponent("stderr")

        // posix_spawn, not Foundation's Process, whose run() on Linux can crash the test
        // process (swift-corelibs-foundation PR 5472).
        var variables = environment
        variables["AWS_LAMBDA_RUNTIME_API"] = "127.0.0.1:\(api.port)"
        let stdin = open("/dev/null", O_RDONLY)
        defer { close(stdin) }
        let process = try SpawnedProcess.Running.start(
            [binary.path], environment: variables, stdin: stdin, stdoutPath: output.path, stderrPath: errors.path
        )

        // Wait until every event was answered (or the process gave up); a generous hang
        // guard, not a timing assertion. Asleep between looks, so the concurrency runtime's
        // thread serves other tests meanwhile.
        let guardDeadline = Date().addingTimeInterval(600)
        func answered() -> Int { api.requests.filter { $0.method == "POST" && !$0.target.hasSuffix("/init/error") }.count }
        var ended = try process.exitIfEnded() != nil
        while answered() < events.count, !ended, Date() < guardDeadline {
            try await Task.sleep(for: .milliseconds(50))
            ended = try process.exitIfEnded() != nil
        }
        if !ended {
            process.terminate()
            _ = try await SpawnedProcess.offThePool { try process.wait() }
        }
        return Result(
            posted: api.requests.filter { $0.method == "POST" }.map { String(decoding: $0.body, as: UTF8.self) },
            stdout: String(decoding: try Data(contentsOf: output), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: errors), as: UTF8.self)
        )
    }
}

/// The events still to hand out, shared with the server's connection threads.
private final class EventQueue: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [Data]
    private var handedOut = 0

    init(_ events: [Data]) { self.events = events }

    func next() -> (Int, Data)? {
        lock.withLock {
            guard handedOut < events.count else { return nil }
            defer { handedOut += 1 }
            return (handedOut, events[handedOut])
        }
    }
}
