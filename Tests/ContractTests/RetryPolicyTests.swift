import PayPulsePorts
import PayPulseTestSupport
import Testing

@Suite("RetryPolicy: full jitter under caps, Retry-After within the budget")
struct RetryPolicyTests {
    let policy = RetryPolicy.google

    @Test("presets: Google three attempts in 8 s, AWS four in 10 s; none is one attempt")
    func presets() {
        #expect(policy == RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(200), maxDelay: .seconds(2), totalBudget: .seconds(8), attemptTimeout: .seconds(10)))
        #expect(RetryPolicy.aws == RetryPolicy(maxAttempts: 4, baseDelay: .milliseconds(100), maxDelay: .seconds(2), totalBudget: .seconds(10), attemptTimeout: .seconds(5)))
        #expect(RetryPolicy.none.maxAttempts == 1)
    }

    @Test("every wait of the product under one policy: lost races up to 1..16 ms, SQLite busy up to 40..200 ms")
    func localWaits() {
        let lostRace = (1...6).map { RetryPolicy.lostRace.backoff(afterAttempt: $0, random: 1) }
        #expect(lostRace == [1, 2, 4, 8, 16, 16].map { Duration.milliseconds($0) })
        #expect(RetryPolicy.lostRace.maxAttempts == 16)
        let busy = (1...4).map { RetryPolicy.sqliteBusy.backoff(afterAttempt: $0, random: 1) }
        #expect(busy == [40, 80, 160, 200].map { Duration.milliseconds($0) })
        #expect(RetryPolicy.sqliteBusy.maxAttempts == 5)
        #expect(RetryPolicy.sqliteBusy.backoff(afterAttempt: 2, random: 0.25) == .milliseconds(20))
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

    struct Failure: Error, Equatable { let number: Int }

    // A budget no scheduling delay reaches: these tests count attempts; the budget has its own.
    private static let quick = RetryPolicy(maxAttempts: 4, baseDelay: .milliseconds(1), maxDelay: .milliseconds(2), totalBudget: .seconds(86_400))

    @Test("the loop counts attempts from 1, stops at the first success and reports each retry")
    func succeedsAfterRetries() async throws {
        var retried: [Int] = []
        let value = try await Self.quick.run { number -> AttemptResult<String, Failure> in
            number < 3 ? .failure(Failure(number: number), retryable: true) : .success("attempt \(number)")
        } willRetry: { number, failure, _ in
            #expect(failure.number == number)
            retried.append(number)
        }
        #expect(value == "attempt 3")
        #expect(retried == [1, 2])
    }

    @Test("a failure not worth retrying ends the loop at once; exhaustion names the last failure")
    func stops() async {
        var attempts = 0
        await #expect(throws: RetryExhausted<Failure>.self) {
            try await Self.quick.run { number -> AttemptResult<Int, Failure> in
                attempts = number
                return .failure(Failure(number: number), retryable: number < 2)
            }
        }
        #expect(attempts == 2)
        do {
            _ = try await Self.quick.run { number -> AttemptResult<Int, Failure> in .failure(Failure(number: number), retryable: true) }
            Issue.record("an always-failing call succeeded")
        } catch {
            #expect(error.failure == Failure(number: 4))
            #expect(error.attempts == 4)
            #expect(!error.cancelled)
        }
    }

    @Test("Retry-After within the budget is the wait; the budget stops new attempts")
    func retryAfterAndBudget() async {
        var waits: [Duration] = []
        // Room to spare on a loaded machine: the first wait is Retry-After's unless the first
        // attempt alone took 850 ms. At 150 ms a wait, the budget ends the loop by attempt 8
        // (seven Retry-After waits, then what is left), never at maxAttempts.
        let tight = RetryPolicy(maxAttempts: 10, baseDelay: .seconds(5), maxDelay: .seconds(5), totalBudget: .seconds(1))
        do {
            _ = try await tight.run { number -> AttemptResult<Int, Failure> in
                .failure(Failure(number: number), retryable: true, retryAfter: .milliseconds(150))
            } willRetry: { _, _, wait in waits.append(wait) }
        } catch {
            #expect(error.attempts <= 8)
        }
        #expect(waits.first == .milliseconds(150))
        #expect(waits.count <= 7 && waits.dropLast().allSatisfy { $0 == .milliseconds(150) })
    }

    @Test("a sleep that wakes early never buys attempts past the wait that reached the budget's end")
    func earlyWakeEndsAtBudget() {
        // Each wait is slept at nine tenths: the clock alone would leave a sliver of budget
        // after every wait and keep trying until maxAttempts. The draw is the ceiling, so a
        // wait that does not fit Retry-After is the rest of the budget, not a jittered sliver.
        let policy = RetryPolicy(maxAttempts: 50, baseDelay: .seconds(5), maxDelay: .seconds(5), totalBudget: .milliseconds(600))
        var waits: [Duration] = []
        do {
            _ = try policy.runBlocking({ number -> AttemptResult<Int, Failure> in
                .failure(Failure(number: number), retryable: true, retryAfter: .milliseconds(100))
            }, willRetry: { _, _, wait in waits.append(wait) }, random: { 1 }, sleep: { RetryPolicy.sleepThread($0 * 0.9) })
            Issue.record("an always-failing call succeeded")
        } catch {
            #expect(error.attempts <= 8, "attempts: \(error.attempts), waits: \(waits)")
            #expect(error.attempts == waits.count + 1)
        }
        #expect(waits.dropLast().allSatisfy { $0 == .milliseconds(100) }, "only the last wait is what was left: \(waits)")
    }

    @Test("the blocking loop makes the same attempts and waits, handing each wait to its sleep")
    func blocking() {
        let policy = RetryPolicy(maxAttempts: 4, baseDelay: .milliseconds(100), maxDelay: .milliseconds(300), totalBudget: .seconds(30))
        var slept: [Duration] = []
        let value = try? policy.runBlocking({ number -> AttemptResult<String, Failure> in
            number < 4 ? .failure(Failure(number: number), retryable: true) : .success("attempt \(number)")
        }, random: { 0.5 }, sleep: { slept.append($0) })
        #expect(value == "attempt 4")
        #expect(slept == [.milliseconds(50), .milliseconds(100), .milliseconds(150)])

        slept = []
        do {
            _ = try policy.runBlocking({ number -> AttemptResult<Int, Failure> in
                .failure(Failure(number: number), retryable: number < 2)
            }, random: { 1 }, sleep: { slept.append($0) })
            Issue.record("an always-failing call succeeded")
        } catch {
            #expect(error.failure == Failure(number: 2))
            #expect(error.attempts == 2)
        }
        #expect(slept == [.milliseconds(100)])
    }

    @Test("the thread sleep blocks for the wait")
    func threadSleep() {
        let started = ContinuousClock.now
        RetryPolicy.sleepThread(.milliseconds(30))
        #expect(ContinuousClock.now - started >= .milliseconds(30))
    }

    @Test("a cancelled task stops retrying and says so")
    func cancellation() async {
        // Cancelled once the loop says it will wait, and the wait is half an hour (pinned at
        // its ceiling): no scheduling delay lets a second attempt in first. Cancelling after
        // a fixed 50 ms let a loaded machine finish a short jittered wait first (2 attempts).
        let slow = RetryPolicy(maxAttempts: 5, baseDelay: .seconds(3600), maxDelay: .seconds(3600), totalBudget: TestTime.unreachableBudget)
        let waiting = AsyncStream<Void>.makeStream()
        let task = Task {
            try await slow.run(
                { number -> AttemptResult<Int, Failure> in .failure(Failure(number: number), retryable: true) },
                willRetry: { _, _, _ in waiting.continuation.yield() }, random: { 1 }
            )
        }
        for await _ in waiting.stream { break }
        task.cancel()
        do {
            _ = try await task.value
            Issue.record("a cancelled retry loop succeeded")
        } catch let error as RetryExhausted<Failure> {
            #expect(error.cancelled)
            #expect(error.attempts == 1)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
