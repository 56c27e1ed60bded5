import Foundation
import PayPulseTestSupport
import Testing

/// `SpawnedProcess.Running.awaitOutput`: how the tests learn where a child that bound port 0
/// listens (serve, chromedriver), and how they hear that it never will.
@Suite("waiting for what a child prints")
struct AwaitOutputTests {
    private func scratch() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("await-output-\(UUID().uuidString)").path
    }

    @Test("the first match, once printed")
    func match() async throws {
        let path = scratch()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let child = try SpawnedProcess.Running.start(
            ["/bin/sh", "-c", "sleep 0.2; echo 'listening on port 40123'; sleep 5"], environment: ["PATH": "/usr/bin:/bin"], stdoutPath: path
        )
        defer { child.terminate(); _ = try? child.wait() }
        #expect(try await child.awaitOutput(matching: "port [0-9]+", in: path, within: .seconds(30)) == "port 40123")
    }

    @Test("a child that ends first, and one that never prints it, are failures, not hangs")
    func failures() async throws {
        let path = scratch()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let ended = try SpawnedProcess.Running.start(["/bin/sh", "-c", "exit 3"], environment: [:], stdoutPath: path)
        let endedFailure = await #expect(throws: SpawnedProcess.Failure.self) { try await ended.awaitOutput(matching: "port [0-9]+", in: path, within: .seconds(30)) }
        #expect(endedFailure?.childEnded == true)
        // A child that outlives any wait: one that ended by itself (it was `sleep 30`) read as
        // "ended first" once a loaded machine delayed the first look by its whole life.
        let silent = try SpawnedProcess.Running.start(
            ["/bin/sh", "-c", "exec sleep 86400"], environment: ["PATH": "/usr/bin:/bin"], stdoutPath: path
        )
        let silentFailure = await #expect(throws: SpawnedProcess.Failure.self) { try await silent.awaitOutput(matching: "port [0-9]+", in: path, within: .milliseconds(300)) }
        #expect(silentFailure?.childEnded == false)
        // Both were reaped by awaitOutput (the silent one after stopping it): asking again
        // fails, which is why the chromedriver start reads childEnded instead of asking.
        #expect(throws: SpawnedProcess.Failure.self) { try ended.exitIfEnded() }
        #expect(throws: SpawnedProcess.Failure.self) { try silent.exitIfEnded() }
    }
}
