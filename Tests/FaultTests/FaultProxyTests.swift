import Foundation
import PayPulseTestSupport
import PayPulseTransport
import Testing

/// The proxy on its own, in front of a scripted peer that answers 200 with the request's
/// number: what each fault does, which requests a trigger hits, and the counters.
@Suite("FaultProxy")
struct FaultProxyTests {
    private let client = CurlHTTPClient()

    private func peer() throws -> ScriptedHTTPServer {
        try ScriptedHTTPServer { index, _ in .respond(status: 200, headers: ["Content-Type": "text/plain"], body: "answer \(index)") }
    }

    /// A request on a connection of its own, so libcurl never resends it after a reset.
    private func send(_ proxy: FaultProxy, _ operation: String, timeout: Duration = TestTime.scaled(.seconds(5))) async -> Result<HTTPResponse, TransportError> {
        let request = HTTPRequest(
            method: "POST", url: proxy.url + "/", headers: ["X-Amz-Target": "secretsmanager.\(operation)"], body: Array("{}".utf8),
            timeout: timeout, freshConnection: true
        )
        do {
            return .success(try await client.execute(request))
        } catch let error as TransportError {
            return .failure(error)
        } catch {
            return .failure(.other)
        }
    }

    @Test("the n-th request overall and the n-th of an operation; one-shot once, persistent from then on")
    func triggers() async throws {
        let upstream = try peer()
        defer { upstream.stop() }
        let proxy = try FaultProxy(upstream: upstream.url, dialect: .aws)
        defer { proxy.stop() }
        proxy.plan.inject(.status(503), at: .request(2))
        proxy.plan.inject(.status(500), at: .operation("PutSecretValue", occurrence: 2), persistent: true)
        var statuses: [Int] = []
        for operation in ["GetSecretValue", "GetSecretValue", "PutSecretValue", "PutSecretValue", "GetSecretValue", "PutSecretValue"] {
            statuses.append(try await send(proxy, operation).get().status)
        }
        #expect(statuses == [200, 503, 200, 500, 200, 500])
        #expect(proxy.plan.operationCounts == ["GetSecretValue": 3, "PutSecretValue": 3])
        #expect(upstream.requests.count == 3)
        #expect(proxy.plan.records.map(\.upstreamStatus) == [200, nil, 200, nil, 200, nil])
    }

    @Test("a lagging listing answers empty without forwarding; a held request waits at its gate, then is forwarded")
    func listingAndHold() async throws {
        let upstream = try peer()
        defer { upstream.stop() }
        let proxy = try FaultProxy(upstream: upstream.url, dialect: .aws)
        defer { proxy.stop() }
        proxy.plan.inject(.emptyListing, at: .operation("ListSecrets", occurrence: 1))
        let listed = try await send(proxy, "ListSecrets").get()
        #expect(listed.status == 200 && String(decoding: listed.body, as: UTF8.self) == #"{"SecretList":[]}"#)
        #expect(upstream.requests.isEmpty, "AWS never saw it")

        let gate = ProxyGate()
        proxy.plan.inject(.hold(gate), at: .operation("PutSecretValue", occurrence: 1))
        async let held = send(proxy, "PutSecretValue")
        #expect(await gate.waitUntilHeld())
        try await Task.sleep(for: .milliseconds(100))
        #expect(upstream.requests.isEmpty, "held: not forwarded before the gate opens")
        gate.open()
        #expect(try await held.get().status == 200)
        #expect(upstream.requests.count == 1)
    }

    @Test("AWS and Google answers of its own: 503 and throttling bodies")
    func answers() async throws {
        let upstream = try peer()
        defer { upstream.stop() }
        let aws = try FaultProxy(upstream: upstream.url, dialect: .aws)
        defer { aws.stop() }
        aws.plan.inject(.throttle, at: .request(1))
        let throttled = try await send(aws, "PutSecretValue").get()
        #expect(throttled.status == 400 && String(decoding: throttled.body, as: UTF8.self) == #"{"__type":"ThrottlingException","message":"Rate exceeded"}"#)

        let google = try FaultProxy(upstream: upstream.url, dialect: .google)
        defer { google.stop() }
        google.plan.inject(.throttle, at: .request(1))
        google.plan.inject(.status(503), at: .request(2))
        let limited = try await client.execute(HTTPRequest(method: "POST", url: google.url + "/token", freshConnection: true))
        let down = try await client.execute(HTTPRequest(method: "POST", url: google.url + "/token", freshConnection: true))
        #expect(limited.status == 429 && String(decoding: limited.body, as: UTF8.self).contains("rate_limit_exceeded"))
        #expect(down.status == 503 && google.plan.count(of: "token") == 2 && upstream.requests.isEmpty)
    }

    @Test("resets before and after forwarding, truncation, stall and latency")
    func connectionFaults() async throws {
        let upstream = try peer()
        defer { upstream.stop() }
        let proxy = try FaultProxy(upstream: upstream.url, dialect: .aws)
        defer { proxy.stop() }

        proxy.plan.inject(.resetBeforeForward, at: .request(1))
        let beforeForward = await send(proxy, "DeleteSecret")
        #expect(beforeForward.failure == .connectionReset, "\(beforeForward)")
        #expect(upstream.requests.isEmpty)

        proxy.plan.inject(.resetAfterForward, at: .request(2))
        #expect(await send(proxy, "DeleteSecret").failure == .connectionReset)
        #expect(upstream.requests.count == 1 && proxy.plan.records[1].upstreamStatus == 200)

        proxy.plan.inject(.truncate, at: .request(3))
        #expect(await send(proxy, "DeleteSecret").failure == .truncatedBody)
        #expect(upstream.requests.count == 2)

        proxy.plan.inject(.stall, at: .request(4))
        #expect(await send(proxy, "DeleteSecret", timeout: .milliseconds(300)).failure == .timeout)
        #expect(upstream.requests.count == 2)

        proxy.plan.inject(.latency(.milliseconds(50)), at: .request(5))
        let late = try await send(proxy, "DeleteSecret").get()
        #expect(late.status == 200 && String(decoding: late.body, as: UTF8.self) == "answer 2")
        #expect(proxy.plan.records.map { $0.fault?.description ?? "none" } == ["reset-before", "reset-after", "truncate", "stall", "latency"])
    }
}

extension Result {
    /// The error, or `nil` on success.
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
