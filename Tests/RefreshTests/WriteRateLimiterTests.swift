import PayPulseDomain
import PayPulseTestSupport
import Testing

@Suite("Write rate limiter")
struct WriteRateLimiterTests {
    @Test("200 tasks asking at once get reservations spaced by their size over the rate")
    func spacing() async throws {
        let permits = PermitLog()
        let limiter = WriteRateLimiter(writesPerSecond: 1000, onGrant: permits.record)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<200 { group.addTask { try await limiter.acquire(2) } }
            try await group.waitForAll()
        }
        // Checked on the limiter's own instants: exact, however late the tasks woke. (The
        // 1,000-grant refresh test alone would not notice a limiter that paces nothing: its
        // writes rarely outrun 600 a second by themselves.)
        #expect(permits.permitCount == 400)
        #expect(permits.isSpaced(by: .milliseconds(1)), "a reservation started before the previous one's permits were spent")
        #expect(permits.maxPermits(in: .milliseconds(100)) <= 100 + 2)
    }

    @Test("a caller waits for its reservation: 50 in a row at 1,000 permits a second take at least 98 ms")
    func waits() async throws {
        let limiter = WriteRateLimiter(writesPerSecond: 1000)
        let started = ContinuousClock.now
        for _ in 0..<50 { try await limiter.acquire(2) }
        // A lower bound: a loaded machine can only make it longer.
        #expect(ContinuousClock.now - started >= .milliseconds(98))
    }
}
