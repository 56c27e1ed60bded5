import PayPulseTestSupport
import Testing

@testable import PayPulseTransport

@Suite("libcurl HTTP client against a loopback server")
struct CurlHTTPClientTests {
    // A generous connect timeout: under a loaded CI machine the server's accept thread can lag,
    // and nothing here is about connect timeouts (TransportFailureTests has those).
    let client = CurlHTTPClient(configuration: .init(connectTimeout: .seconds(30), maxResponseBytes: 4096))

    @Test("a POST carries method, headers and body; the answer comes back whole")
    func roundTrip() async throws {
        let server = try ScriptedHTTPServer { _, request in
            .respond(status: 201, headers: ["X-Echo-Method": request.method, "Content-Type": "application/json"], body: "{\"ok\":true}")
        }
        defer { server.stop() }
        let body = Array("{\"a\":\"\u{0}b\"}".utf8)
        let response = try await client.execute(
            HTTPRequest(method: "POST", url: server.url + "/path?q=1", headers: ["X-Amz-Target": "svc.Op", "Content-Type": "application/x-amz-json-1.1"], body: body)
        )
        #expect(response.status == 201)
        #expect(response.headers["x-echo-method"] == "POST")
        #expect(response.bodyText == "{\"ok\":true}")
        let received = try #require(server.requests.first)
        #expect(received.target == "/path?q=1")
        #expect(received.headers["x-amz-target"] == "svc.Op")
        #expect(received.headers["content-type"] == "application/x-amz-json-1.1")
        #expect(received.headers["expect"] == nil)
        #expect(received.body == body)
    }

    @Test("GET and DELETE send no body and no default content type")
    func methods() async throws {
        let server = try ScriptedHTTPServer { _, _ in .respond(status: 204) }
        defer { server.stop() }
        _ = try await client.execute(HTTPRequest(method: "GET", url: server.url + "/a"))
        _ = try await client.execute(HTTPRequest(method: "DELETE", url: server.url + "/b"))
        let requests = server.requests
        #expect(requests.map(\.method) == ["GET", "DELETE"])
        #expect(requests.allSatisfy { $0.body.isEmpty && $0.headers["content-type"] == nil })
    }

    @Test("a request asking for a fresh connection gets one; the next reuses again")
    func freshConnection() async throws {
        let server = try ScriptedHTTPServer { _, _ in .respond(status: 200, body: "x") }
        defer { server.stop() }
        _ = try await client.execute(HTTPRequest(method: "POST", url: server.url, body: [1]))
        _ = try await client.execute(HTTPRequest(method: "POST", url: server.url, body: [2], freshConnection: true))
        #expect(server.connectionCount == 2)
        _ = try await client.execute(HTTPRequest(method: "POST", url: server.url, body: [3]))
        #expect(server.requests.count == 3 && server.connectionCount == 2)
    }

    @Test("sequential requests reuse one connection")
    func connectionReuse() async throws {
        let server = try ScriptedHTTPServer { _, _ in .respond(status: 200, body: "x") }
        defer { server.stop() }
        for _ in 0..<20 {
            _ = try await client.execute(HTTPRequest(method: "POST", url: server.url, body: [1, 2, 3]))
        }
        #expect(server.requests.count == 20)
        #expect(server.connectionCount == 1)
    }

    @Test("concurrent requests from a task group all succeed on a bounded set of connections")
    func concurrentCalls() async throws {
        let server = try ScriptedHTTPServer { index, _ in .respond(status: 200, body: "\(index)") }
        defer { server.stop() }
        // Ten bursts of 20 at once: a burst needs at most 20 connections, and every later
        // burst reuses them (idle handles keep theirs, up to maxIdleHandles = 32). A client
        // that opened a connection per request would show 200.
        var statuses: [Int] = []
        for _ in 0..<10 {
            statuses += try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<20 {
                    group.addTask { try await client.execute(HTTPRequest(method: "GET", url: server.url)).status }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
        }
        #expect(statuses.count == 200 && statuses.allSatisfy { $0 == 200 })
        #expect(server.connectionCount <= 20, "200 requests in bursts of 20 opened \(server.connectionCount) connections")
    }

    @Test("blocked transfers do not starve the Swift concurrency pool")
    func blockingOffThePool() async throws {
        let stalling = try ScriptedHTTPServer { _, _ in .stall }
        let quick = try ScriptedHTTPServer { _, _ in .respond(status: 200) }
        defer { quick.stop() }
        let stalled = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<8 {
                    group.addTask { _ = try? await client.execute(HTTPRequest(method: "GET", url: stalling.url, timeout: .seconds(60))) }
                }
                try await group.waitForAll()
            }
        }
        while stalling.requests.count < 8 { try await Task.sleep(for: .milliseconds(10)) }
        // With 8 transfers blocked (more than this machine's cores), another call still runs:
        // well before the stalled ones give up (60 s), which a starved pool would wait for.
        // The bound is half of that, to stay clear of a loaded machine's delays.
        let started = ContinuousClock.now
        let response = try await client.execute(HTTPRequest(method: "GET", url: quick.url))
        let waited = ContinuousClock.now - started
        #expect(response.status == 200)
        #expect(waited < .seconds(30), "the quick call waited \(waited) behind the stalled transfers")
        stalling.stop()
        try await stalled.value
    }
}
