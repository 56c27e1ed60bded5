import PayPulseGoogle
import PayPulsePorts
import PayPulseTestSupport
import PayPulseTransport
import Testing

@Suite("the fake's concurrency counter, holds and stop")
struct FakeGoogleControlTests {
    /// One attempt that outlasts `waitUntilHeld`'s patience: a held call must not time out
    /// before the test releases it, however slowly a loaded machine registers the holds.
    private static let patient = RetryPolicy(maxAttempts: 1, attemptTimeout: .seconds(90))

    /// `count` grants named `1//0gUser<i>`.
    private func fakeWithGrants(_ count: Int) throws -> FakeGoogleServer {
        let fake = try FakeGoogleServer()
        for index in 0..<count { fake.addGrant(refreshToken: "1//0gUser\(index)") }
        return fake
    }

    @Test("parallel refreshes with latency show up in the in-flight high-water mark")
    func concurrency() async throws {
        let fake = try fakeWithGrants(8)
        defer { fake.stop() }
        // Long enough that eight transfers started on a loaded machine still overlap.
        fake.latency = .seconds(2)
        let client = GoogleFixture.client(fake)
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<8 {
                group.addTask { try await client.refresh(refreshToken: "1//0gUser\(index)", clientID: fake.clientID).accessToken }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(tokens.count == 8)
        #expect(fake.tokenCalls == 8)
        #expect(fake.maxConcurrentTokenCalls >= 4 && fake.maxConcurrentTokenCalls <= 8)
    }

    @Test("sequential refreshes never overlap")
    func sequential() async throws {
        let fake = try fakeWithGrants(3)
        defer { fake.stop() }
        fake.latency = .milliseconds(20)
        let client = GoogleFixture.client(fake)
        for index in 0..<3 { _ = try await client.refresh(refreshToken: "1//0gUser\(index)", clientID: fake.clientID) }
        #expect(fake.maxConcurrentTokenCalls == 1)
    }

    @Test("a hold keeps refreshes inside Google until released")
    func holdAndRelease() async throws {
        let fake = try fakeWithGrants(3)
        defer { fake.stop() }
        let client = GoogleFixture.client(fake, retry: Self.patient)
        let hold = fake.hold()
        let refreshes = (0..<3).map { index in
            Task { try await client.refresh(refreshToken: "1//0gUser\(index)", clientID: fake.clientID) }
        }
        #expect(await hold.waitUntilHeld(count: 3))
        #expect(fake.tokenCalls == 3 && fake.maxConcurrentTokenCalls == 3)
        hold.release()
        for refresh in refreshes { _ = try await refresh.value }
        #expect(hold.heldCount == 0 && hold.isReleased)

        // Released holds hold nothing more.
        _ = try await client.refresh(refreshToken: "1//0gUser0", clientID: fake.clientID)
        #expect(fake.refreshCount(for: "1//0gUser0") == 2)
    }

    @Test("an answer is decided on arrival: a grant revoked while its refresh is held still gets that answer")
    func decidedOnArrival() async throws {
        let fake = try fakeWithGrants(1)
        defer { fake.stop() }
        let client = GoogleFixture.client(fake, retry: Self.patient)
        let hold = fake.hold()
        let refresh = Task { try await client.refresh(refreshToken: "1//0gUser0", clientID: fake.clientID) }
        #expect(await hold.waitUntilHeld())
        try await client.revoke(token: "1//0gUser0")
        hold.release()
        #expect(try await refresh.value.accessToken == "ya29.fake-1")
        let error = await #expect(throws: GoogleOAuthError.self) {
            try await client.refresh(refreshToken: "1//0gUser0", clientID: fake.clientID)
        }
        #expect(error?.kind == .invalidGrant)
    }

    @Test("stop ends held and stalled calls promptly; the stalled one fails as transient")
    func stopReleases() async throws {
        let fake = try fakeWithGrants(1)
        // An hour per attempt: the stalled call can only end by stop(), not by its timeout
        // (the error's code tells which; no wall-clock bound, the machine may be loaded).
        let client = GoogleFixture.client(fake, retry: RetryPolicy(maxAttempts: 1, totalBudget: .seconds(7200), attemptTimeout: .seconds(3600)))
        let hold = fake.hold()
        fake.script([.stall], on: .revoke)
        // Whether the held answer beats the socket shutdown is a race; only its end matters.
        let held = Task { try? await client.refresh(refreshToken: "1//0gUser0", clientID: fake.clientID) }
        let stalled = Task { try await client.revoke(token: "1//0gUser0") }
        #expect(await hold.waitUntilHeld())
        while fake.revokeCalls < 1 { try await Task.sleep(for: .milliseconds(5)) }
        fake.stop()
        _ = await held.value
        let error = await #expect(throws: GoogleOAuthError.self) { try await stalled.value }
        #expect(error?.kind == .transient)
        #expect(error?.code != "timeout")
    }
}
