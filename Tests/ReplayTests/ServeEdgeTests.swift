import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PayPulseTestSupport
import PayPulseTransport
import Testing

/// What `paypulse serve` answers beyond the events: its own routes, requests no function
/// sees, and how it starts and stops.
@Suite("paypulse serve at its edges")
struct ServeEdgeTests {
    private let client = CurlHTTPClient()

    private func json(_ response: HTTPResponse) -> [String: String] {
        (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: String]) ?? [:]
    }

    @Test("unknown routes, wrong methods and bodies over 1 MiB get the functions' JSON errors; health and the contract answer")
    func routes() async throws {
        let server = try LocalServerProcess(arguments: [])
        defer { _ = try? server.stop() }

        let unknown = try await client.execute(HTTPRequest(method: "GET", url: server.baseURL + "/v2/nothing?token=secret"))
        #expect(unknown.status == 404 && json(unknown)["error"] == "not_found")
        #expect(unknown.headers["content-type"] == "application/json")

        let wrong = try await client.execute(HTTPRequest(method: "PATCH", url: server.baseURL + "/v1/auth/gmail-tokens"))
        #expect(wrong.status == 405 && json(wrong)["error"] == "method_not_allowed")
        #expect(wrong.headers["allow"] == "DELETE, POST")

        let huge = try await client.execute(HTTPRequest(
            method: "POST", url: server.baseURL + "/v1/auth/gmail-tokens", headers: ["Content-Type": "application/json"],
            body: Array(repeating: UInt8(ascii: "a"), count: 2 << 20)
        ))
        #expect(huge.status == 413 && json(huge)["error"] == "payload_too_large")

        let health = try await client.execute(HTTPRequest(method: "GET", url: server.baseURL + "/healthz"))
        #expect(health.status == 200 && health.bodyText == #"{"status":"ok"}"#)
        let document = try await client.execute(HTTPRequest(method: "GET", url: server.baseURL + "/openapi.yaml"))
        let committed = try String(contentsOf: BuiltExecutables.repositoryRoot.appendingPathComponent("openapi.yaml"), encoding: .utf8)
        #expect(document.status == 200 && document.bodyText == committed)

        // The access log names the path, never the query (it may hold a token).
        #expect(server.log.contains("GET /v2/nothing 404 "))
        #expect(!server.log.contains("secret"))
    }

    @Test("a port in use is one line and exit 1; SIGTERM stops it with exit 0")
    func lifecycle() async throws {
        let first = try LocalServerProcess(arguments: [])
        let port = try #require(first.baseURL.split(separator: ":").last.map(String.init))
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("serve-busy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let second = try SpawnedProcess.Running.start(
            [BuiltExecutables.directory.appendingPathComponent("paypulse").path, "serve", "--port", port],
            environment: ["PAYPULSE_STATE_DIR": scratch.path, "PATH": "/usr/bin:/bin"],
            stdoutPath: scratch.appendingPathComponent("out").path, stderrPath: scratch.appendingPathComponent("err").path
        )
        #expect(try second.wait().status == 1)
        let error = try String(contentsOf: scratch.appendingPathComponent("err"), encoding: .utf8)
        #expect(error == "Error: 127.0.0.1:\(port) is already in use; stop what listens there or choose another --port\n")
        let stopped = try first.stop(signal: SIGINT)
        #expect(stopped.status == 0 && stopped.signal == nil, "Ctrl-C stops it cleanly")
    }

    @Test("--refresh-every runs the refresh job on a timer, through the token-refresh handler")
    func refreshTimer() async throws {
        let server = try LocalServerProcess(arguments: ["--fake-google", "--refresh-every", "1"])
        defer { _ = try? server.stop() }
        let deadline = Date().addingTimeInterval(20)
        while !server.log.contains("refresh run: scanned 0,"), Date() < deadline { try await Task.sleep(for: .milliseconds(100)) }
        #expect(server.log.contains("refresh run: scanned 0, due 0, refreshed 0"), "\(server.log.suffix(600))")
    }
}
