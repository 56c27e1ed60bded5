import PayPulseGoogle
import PayPulsePorts
import PayPulseTestSupport
import PayPulseTransport
import Testing

@Suite("transient failures are retried, within bounds")
struct RetryTests {
    private func refresh(_ fake: FakeGoogleServer, retry: RetryPolicy, logs: LogCapture = LogCapture()) async throws -> GoogleRefreshAnswer {
        try await GoogleFixture.client(fake, retry: retry, logs: logs).refresh(refreshToken: GoogleFixture.refreshToken, clientID: fake.clientID)
    }

    @Test("429 then success: the second call succeeds, and the retry is logged as a warning")
    func throttledOnce() async throws {
        let fake = try GoogleFixture.fakeWithGrant()
        defer { fake.stop() }
        fake.script([.status(429)])
        let logs = LogCapture()
        let grant = try await refresh(fake, retry: GoogleFixture.quickRetry, logs: logs)
        #expect(grant.accessToken == "ya29.fake-1")
        #expect(fake.tokenCalls == 2)
        let retries = logs.lines.filter { $0.hasPrefix("warning google call retrying") }
        #expect(retries.count == 1)
        #expect(retries.first?.contains("error=http_429") == true && retries.first?.contains("endpoint=token") == true)
    }

    @Test("503 every time: transient after exactly maxAttempts calls")
    func unavailable() async throws {
        let fake = try GoogleFixture.fakeWithGrant()
        defer { fake.stop() }
        fake.script(Array(repeating: .status(503), count: 5))
        let error = await #expect(throws: GoogleOAuthError.self) { try await refresh(fake, retry: GoogleFixture.quickRetry) }
        #expect(error?.kind == .transient && error?.code == "http_503")
        #expect(error?.detail == "internal_failure: Backend Error")
        #expect(fake.tokenCalls == GoogleFixture.quickRetry.maxAttempts)
        #expect(fake.refreshCount(for: GoogleFixture.refreshToken) == 0)
    }

    @Test("an HTML 502 from a proxy is transient and retried like any 5xx")
    func htmlGateway() async throws {
        let fake = try GoogleFixture.fakeWithGrant()
        defer { fake.stop() }
        fake.script([.response(status: 502, headers: ["Content-Type": "text/html"], body: "<html>502 Bad Gateway</html>")])
        let grant = try await refresh(fake, retry: GoogleFixture.quickRetry)
        #expect(grant.accessToken == "ya29.fake-1" && fake.tokenCalls == 2)
    }

    @Test("a 400 whose error is prose, not a code, is refused as http_400: free text is never taken for a code")
    func proseErrorIsNotACode() async throws {
        let fake = try GoogleFixture.fakeWithGrant()
        defer { fake.stop() }
        fake.script([.response(status: 400, body: #"{"error":"Token has been expired or revoked."}"#)])
        let error = await #expect(throws: GoogleOAuthError.self) { try await refresh(fake, retry: GoogleFixture.quickRetry) }
        #expect(error?.kind == .rejected && error?.code == "http_400")
        #expect(fake.tokenCalls == 1)
    }

    @Test("a stalled Google is a timeout: transient, each attempt cut at attemptTimeout")
    func stall() async throws {
        let fake = try GoogleFixture.fakeWithGrant()
        defer { fake.stop() }
        fake.script([.stall])
        let short = RetryPolicy(maxAttempts: 1, attemptTimeout: .milliseconds(300))
        let error = await #expect(throws: GoogleOAuthError.self) { try await refresh(fake, retry: short) }
        #expect(error?.kind == .transient && error?.code == "timeout")
        #expect(fake.tokenCalls == 1)
    }

    @Test("a stall then an answer: the retry succeeds")
    func stallThenSuccess() async throws {
        let fake = try GoogleFixture.fakeWithGrant()
        defer { fake.stop() }
        fake.script([.stall])
        // The limit cuts the stalled attempt and must let the answered one through: a
        // loaded machine can take 300 ms to deliver an answer, not seconds.
        var policy = GoogleFixture.quickRetry
        policy.attemptTimeout = TestTime.scaled(.seconds(3))
        #expect(try await refresh(fake, retry: policy).accessToken == "ya29.fake-1")
        #expect(fake.tokenCalls == 2)
    }

    @Test("a reset connection is transient; with retries the next attempt succeeds")
    func reset() async throws {
        let fake = try GoogleFixture.fakeWithGrant()
        defer { fake.stop() }
        fake.script([.reset])
        let error = await #expect(throws: GoogleOAuthError.self) { try await refresh(fake, retry: .none) }
        #expect(error?.kind == .transient && error?.code == "connection_reset")
        #expect(fake.tokenCalls == 1)

        let other = try GoogleFixture.fakeWithGrant()
        defer { other.stop() }
        other.script([.reset])
        #expect(try await refresh(other, retry: GoogleFixture.quickRetry).accessToken == "ya29.fake-1")
        #expect(other.tokenCalls == 2)
    }

    @Test("a truncated answer is transient")
    func truncated() async throws {
        let fake = try GoogleFixture.fakeWithGrant()
        defer { fake.stop() }
        fake.script([.truncate])
        let error = await #expect(throws: GoogleOAuthError.self) { try await refresh(fake, retry: .none) }
        #expect(error?.kind == .transient && error?.code == "truncated_body")
    }

    @Test("nobody listening: connection_refused after every attempt")
    func refused() async throws {
        let port = try RefusingLoopbackPort.make()
        let client = GoogleOAuthClient(
            tokenEndpoint: "http://127.0.0.1:\(port)/token", transport: CurlHTTPClient(), retry: GoogleFixture.quickRetry, logger: LogCapture().logger
        )
        let error = await #expect(throws: GoogleOAuthError.self) {
            try await client.refresh(refreshToken: GoogleFixture.refreshToken, clientID: "id")
        }
        #expect(error?.kind == .transient && error?.code == "connection_refused")
    }

    @Test("an unusable endpoint URL is a configuration error, not retried")
    func invalidURL() async throws {
        let logs = LogCapture()
        let client = GoogleOAuthClient(tokenEndpoint: "ftp://127.0.0.1/token", transport: CurlHTTPClient(), retry: GoogleFixture.quickRetry, logger: logs.logger)
        let error = await #expect(throws: GoogleOAuthError.self) {
            try await client.refresh(refreshToken: GoogleFixture.refreshToken, clientID: "id")
        }
        #expect(error?.kind == .clientBroken && error?.code == "invalid_url")
        #expect(logs.lines.allSatisfy { !$0.contains("retrying") })
    }

    @Test("a small Retry-After is waited out exactly")
    func retryAfterHonoured() async throws {
        let fake = try GoogleFixture.fakeWithGrant()
        defer { fake.stop() }
        fake.script([.status(503, retryAfter: 1)])
        let started = ContinuousClock.now
        #expect(try await refresh(fake, retry: GoogleFixture.quickRetry).accessToken == "ya29.fake-1")
        #expect(ContinuousClock.now - started >= .seconds(1))
        #expect(fake.tokenCalls == 2)
    }

    @Test("a Retry-After past the budget falls back to the short backoff")
    func retryAfterTooLong() async throws {
        let fake = try GoogleFixture.fakeWithGrant()
        defer { fake.stop() }
        fake.script([.status(429, retryAfter: 3600)])
        // Honouring an hour-long Retry-After would hang the test; the fallback returns at once.
        #expect(try await refresh(fake, retry: GoogleFixture.quickRetry).accessToken == "ya29.fake-1")
        #expect(fake.tokenCalls == 2)
    }

    @Test("no attempt starts after the total budget")
    func budget() async throws {
        let fake = try GoogleFixture.fakeWithGrant()
        defer { fake.stop() }
        fake.latency = .milliseconds(150)
        fake.script(Array(repeating: .status(500), count: 5))
        let tight = RetryPolicy(maxAttempts: 5, baseDelay: .milliseconds(1), maxDelay: .milliseconds(1), totalBudget: .milliseconds(100))
        let error = await #expect(throws: GoogleOAuthError.self) { try await refresh(fake, retry: tight) }
        #expect(error?.code == "http_500")
        #expect(fake.tokenCalls == 1)
    }

    @Test("cancellation while waiting to retry ends the call as transient")
    func cancelled() async throws {
        let fake = try GoogleFixture.fakeWithGrant()
        defer { fake.stop() }
        // An hour's Retry-After inside a budget that fits it: once the client logs that it is
        // retrying, it is surely still waiting when cancelled, however loaded the machine.
        fake.script([.status(503, retryAfter: 3600)])
        let patient = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(5), maxDelay: .milliseconds(10), totalBudget: .seconds(7200))
        let logs = LogCapture()
        let task = Task { try await refresh(fake, retry: patient, logs: logs) }
        while logs.lines(containingAnyOf: ["google call retrying"]).isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        task.cancel()
        let error = await #expect(throws: GoogleOAuthError.self) { try await task.value }
        #expect(error?.kind == .transient && error?.code == "cancelled")
        #expect(fake.tokenCalls == 1)
    }
}
