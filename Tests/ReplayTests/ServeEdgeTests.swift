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
        let server = try await LocalServerProcess(arguments: [])
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
        let first = try await LocalServerProcess(arguments: [])
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
        let server = try await LocalServerProcess(arguments: ["--fake-google", "--refresh-every", "1"])
        defer { _ = try? server.stop() }
        let deadline = Date().addingTimeInterval(20)
        while !server.log.contains("refresh run: scanned 0,"), Date() < deadline { try await Task.sleep(for: .milliseconds(100)) }
        #expect(server.log.contains("refresh run: scanned 0, due 0, refreshed 0"), "\(server.log.suffix(600))")
    }

    @Test("HEAD is answered as GET without a body, on every GET route")
    func head() async throws {
        let server = try await LocalServerProcess(arguments: [])
        defer { _ = try? server.stop() }
        for (path, status) in [("/healthz", 200), ("/openapi.yaml", 200), ("/", 200), ("/v1/user/me", 401)] {
            let connection = try RawHTTPConnection(baseURL: server.baseURL)
            connection.transmit("HEAD \(path) HTTP/1.1\r\nHost: \(server.baseURL.dropFirst("http://".count))\r\nConnection: close\r\n\r\n")
            let answer = connection.readUntilClosed(within: .seconds(3)).text
            #expect(answer.hasPrefix("HTTP/1.1 \(status) "), "HEAD \(path): \(answer.prefix(200))")
            #expect(answer.hasSuffix("\r\n\r\n"), "HEAD \(path) sent a body: \(answer.suffix(200))")
        }
        let connection = try RawHTTPConnection(baseURL: server.baseURL)
        connection.transmit("HEAD /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        #expect(connection.readUntilClosed(within: .seconds(3)).text.lowercased().contains("content-length: 15\r\n"), "GET's length")
    }

    @Test("a body cut short or a malformed chunk is 400 invalid_request, not 413")
    func brokenBodies() async throws {
        let server = try await LocalServerProcess(arguments: [])
        defer { _ = try? server.stop() }
        let head = "POST /v1/auth/gmail-tokens HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"

        let chunked = try RawHTTPConnection(baseURL: server.baseURL)
        chunked.transmit(head + "Transfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n")
        let malformed = chunked.readUntilClosed(within: .seconds(5)).text
        #expect(malformed.hasPrefix("HTTP/1.1 400 "), "\(malformed.prefix(300))")
        #expect(malformed.contains(#""error":"invalid_request""#) && !malformed.contains("64 KiB"), "\(malformed)")

        let short = try RawHTTPConnection(baseURL: server.baseURL)
        short.transmit(head + "Content-Length: 100\r\n\r\n{\"a")
        short.finishSending()
        let cut = short.readUntilClosed(within: .seconds(5)).text
        #expect(cut.hasPrefix("HTTP/1.1 400 "), "\(cut.prefix(300))")
        #expect(cut.contains(#""error":"invalid_request""#) && !cut.contains("64 KiB"), "\(cut)")
    }

    @Test("idle, slow-header and slow-body connections are closed once the time-outs pass")
    func timeouts() async throws {
        let server = try await LocalServerProcess(arguments: ["--idle-timeout", "1", "--read-timeout", "3"])
        defer { _ = try? server.stop() }
        let started = ContinuousClock.now

        let idle = try RawHTTPConnection(baseURL: server.baseURL)
        #expect(idle.readUntilClosed(within: .seconds(6)).closed, "an idle connection stays open")

        // One header line every 400 ms: never idle for a second, never a whole head.
        let slowHead = try RawHTTPConnection(baseURL: server.baseURL)
        slowHead.transmit("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        #expect(dribble(slowHead, lines: (0..<30).map { "X-Slow-\($0): a\r\n" }), "a slow head stays open")

        // A body of 100 announced bytes, one every 400 ms.
        let slowBody = try RawHTTPConnection(baseURL: server.baseURL)
        slowBody.transmit("POST /v1/auth/gmail-tokens HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n")
        #expect(dribble(slowBody, lines: Array(repeating: "a", count: 30)), "a slow body stays open")
        #expect(ContinuousClock.now - started < .seconds(25))
    }

    /// Sends `lines` one by one, 400 ms apart; true once the server has closed the connection
    /// (an answer before it may only be 408).
    private func dribble(_ connection: RawHTTPConnection, lines: [String]) -> Bool {
        for line in lines {
            guard connection.transmit(line) else { return true }
            let read = connection.readUntilClosed(within: .milliseconds(400))
            if !read.text.isEmpty { #expect(read.text.hasPrefix("HTTP/1.1 408 "), "\(read.text.prefix(200))") }
            if read.closed { return true }
        }
        return false
    }

    @Test("a half-sent request does not hold the server: SIGINT, SIGINT, SIGTERM stop it within a bounded time")
    func boundedShutdown() async throws {
        let server = try await LocalServerProcess(arguments: [])
        let connection = try RawHTTPConnection(baseURL: server.baseURL)
        connection.transmit("POST /v1/auth/gmail-tokens HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\nabc")
        try await Task.sleep(for: .milliseconds(300))
        let exit = try server.stop(signals: [SIGINT, SIGINT, SIGTERM], within: .seconds(15))
        #expect(exit != nil, "still running 15 s after SIGINT, SIGINT, SIGTERM")
        #expect(exit?.status == 0, "\(String(describing: exit))")
        withExtendedLifetime(connection) {}
    }
}
