import Testing

@testable import PayPulseGoogle

@Suite("GoogleRetryPolicy: full jitter under caps, Retry-After within the budget")
struct GoogleRetryPolicyTests {
    let policy = GoogleRetryPolicy.standard

    @Test("defaults: three attempts, 200 ms base, 2 s cap, 8 s budget, 10 s per attempt; none is one attempt")
    func defaults() {
        #expect(policy == GoogleRetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(200), maxDelay: .seconds(2), totalBudget: .seconds(8), attemptTimeout: .seconds(10)))
        #expect(GoogleRetryPolicy.none.maxAttempts == 1)
    }

    @Test("the ceiling doubles per attempt up to maxDelay; the draw scales it")
    func backoff() {
        #expect(policy.backoff(afterAttempt: 1, random: 1) == .milliseconds(200))
        #expect(policy.backoff(afterAttempt: 2, random: 1) == .milliseconds(400))
        #expect(policy.backoff(afterAttempt: 3, random: 0.5) == .milliseconds(400))
        #expect(policy.backoff(afterAttempt: 10, random: 1) == .seconds(2))
        #expect(policy.backoff(afterAttempt: 200, random: 1) == .seconds(2))
        #expect(policy.backoff(afterAttempt: 1, random: 0) == .zero)
        #expect(policy.backoff(afterAttempt: 1, random: 7) == .milliseconds(200))
    }

    @Test("Retry-After is used when it fits the remaining budget, else the capped backoff")
    func wait() {
        #expect(policy.wait(afterAttempt: 1, retryAfter: .seconds(1), remaining: .seconds(5), random: 1) == .seconds(1))
        #expect(policy.wait(afterAttempt: 1, retryAfter: .seconds(60), remaining: .seconds(5), random: 1) == .milliseconds(200))
        #expect(policy.wait(afterAttempt: 5, retryAfter: nil, remaining: .milliseconds(50), random: 1) == .milliseconds(50))
        #expect(policy.wait(afterAttempt: 1, retryAfter: nil, remaining: .seconds(5), random: 0.5) == .milliseconds(100))
    }
}
