#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The one retry-with-wait policy of the product: every wait before another try (a network
/// call that failed transiently, a store that lost a compare-and-swap race, a SQLite
/// transaction that found the file busy) is exponential backoff with full jitter, bounded
/// in attempts and in total time, honouring a server's `Retry-After` when it fits.
///
/// Attempt n (from 1) is followed by a random wait in `0...min(maxDelay, baseDelay * 2^(n-1))`,
/// the "full jitter" of the AWS Architecture Blog, so that many clients throttled together
/// spread out instead of retrying in lockstep. The wait is a pure calculation with the
/// randomness passed in, so a test pins it; ``run(_:willRetry:random:)`` and
/// ``runBlocking(_:willRetry:random:sleep:)`` apply it. Re-reading at once after a lost
/// compare-and-swap, where the winner's value is already there to read, is not a retry
/// and does not wait (see `TokenVault.rereadsAfterLostSwap`).
package struct RetryPolicy: Sendable, Equatable {
    /// How many attempts in all, the first included.
    package var maxAttempts: Int
    /// The upper bound of the first wait.
    package var baseDelay: Duration
    /// The upper bound of any one wait.
    package var maxDelay: Duration
    /// No new attempt starts once this much time has passed since the first began.
    package var totalBudget: Duration
    /// The limit for one whole exchange (connect, send, answer), for callers that bound an
    /// attempt (network clients); the others leave it at its default.
    package var attemptTimeout: Duration

    /// Creates a policy (by default four attempts within ten seconds, ten seconds each).
    package init(
        maxAttempts: Int = 4, baseDelay: Duration = .milliseconds(100), maxDelay: Duration = .seconds(2),
        totalBudget: Duration = .seconds(10), attemptTimeout: Duration = .seconds(10)
    ) {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.totalBudget = totalBudget
        self.attemptTimeout = attemptTimeout
    }

    /// The jittered wait after attempt `attempt` (from 1), with `random` drawn from `0...1`.
    package func backoff(afterAttempt attempt: Int, random: Double) -> Duration {
        let exponent = min(max(attempt - 1, 0), 30)
        let ceiling = min(maxDelay, baseDelay * (1 << exponent))
        return ceiling * min(max(random, 0), 1)
    }

    /// The wait before the next attempt: the server's `Retry-After` when it fits in what is
    /// left of the budget (it knows best when it will take us again), else the jittered
    /// backoff; never past the end of the budget.
    package func wait(afterAttempt attempt: Int, retryAfter: Duration?, remaining: Duration, random: Double) -> Duration {
        if let retryAfter, retryAfter >= .zero, retryAfter <= remaining { return retryAfter }
        return min(backoff(afterAttempt: attempt, random: random), max(remaining, .zero))
    }

    /// The same policy with another per-attempt limit.
    package func withAttemptTimeout(_ timeout: Duration) -> RetryPolicy {
        var policy = self
        policy.attemptTimeout = timeout
        return policy
    }
}

extension RetryPolicy {
    /// AWS calls inside a request: four attempts within ten seconds, five seconds each.
    package static let aws = RetryPolicy(attemptTimeout: .seconds(5))

    /// Google's OAuth endpoints: three attempts within eight seconds, ten seconds each
    /// (Google answers a refresh more slowly than a loopback-close AWS endpoint).
    package static let google = RetryPolicy(
        maxAttempts: 3, baseDelay: .milliseconds(200), maxDelay: .seconds(2), totalBudget: .seconds(8), attemptTimeout: .seconds(10)
    )

    /// A store of the app's tokens that lost a compare-and-swap race (to a refresh about
    /// to finish, or another store): sixteen attempts, waits of up to 1, 2, 4, 8, then
    /// 16 ms, so writers that collided spread out. The budget is API Gateway's 29 s
    /// integration limit: past it nobody waits for the answer.
    package static let lostRace = RetryPolicy(
        maxAttempts: 16, baseDelay: .milliseconds(1), maxDelay: .milliseconds(16), totalBudget: .seconds(29)
    )

    /// A SQLite transaction that still found the file busy after SQLite's own busy timeout
    /// (another process holds the lock): five attempts, waits of up to 40, 80, 160, then
    /// 200 ms. The budget leaves room for SQLite's five-second timeout in every attempt.
    package static let sqliteBusy = RetryPolicy(
        maxAttempts: 5, baseDelay: .milliseconds(40), maxDelay: .milliseconds(200), totalBudget: .seconds(30)
    )

    /// One attempt, no retry: for callers (and tests) that count calls.
    package static let none = RetryPolicy(maxAttempts: 1)
}

/// What one attempt came to, as the client that made it judges it.
package enum AttemptResult<Value, Failure: Error> {
    /// The call worked.
    case success(Value)
    /// The call failed; `retryable` says whether another attempt may help, `retryAfter`
    /// what the server asked for (HTTP `Retry-After`), if anything.
    case failure(Failure, retryable: Bool, retryAfter: Duration? = nil)
}

/// Why a retried call ended without success.
package struct RetryExhausted<Failure: Error>: Error {
    /// The last attempt's failure.
    package let failure: Failure
    /// How many attempts were made.
    package let attempts: Int
    /// Whether the task's cancellation, not the failure, ended the retries.
    package let cancelled: Bool
}

extension RetryPolicy {
    /// Runs `attempt` (numbered from 1) until it succeeds, fails in a way not worth
    /// retrying, or the attempts, the time budget or the task run out; between attempts it
    /// waits as ``wait(afterAttempt:retryAfter:remaining:random:)`` says, suspending the task.
    ///
    /// - Parameters:
    ///   - attempt: One try; it classifies its own failure.
    ///   - willRetry: Told before each wait (attempt number, failure, wait), for logs.
    ///   - random: The jitter source, `0...1`.
    /// - Returns: The value of the first successful attempt.
    /// - Throws: ``RetryExhausted`` holding the last failure.
    package func run<Value, Failure: Error>(
        _ attempt: (_ number: Int) async -> AttemptResult<Value, Failure>,
        willRetry: (_ number: Int, _ failure: Failure, _ wait: Duration) -> Void = { _, _, _ in },
        random: () -> Double = { Double.random(in: 0...1) }
    ) async throws(RetryExhausted<Failure>) -> Value {
        let started = ContinuousClock.now
        var number = 0, budgetSpent = false
        while true {
            number += 1
            let outcome = await attempt(number)
            switch try next(after: number, outcome, started: started, budgetSpent: budgetSpent, random: random) {
            case .done(let value): return value
            case .retry(let failure, let delay, let spendsBudget):
                budgetSpent = spendsBudget
                guard !Task.isCancelled else { throw RetryExhausted(failure: failure, attempts: number, cancelled: true) }
                willRetry(number, failure, delay)
                do {
                    try await Task.sleep(for: delay)
                } catch {
                    throw RetryExhausted(failure: failure, attempts: number, cancelled: true)
                }
            }
        }
    }

    /// ``run(_:willRetry:random:)`` for a caller that owns its thread and must not suspend
    /// (a blocking C library behind a serial queue): the same attempts, budget and waits,
    /// but each wait blocks the calling thread.
    ///
    /// - Parameters:
    ///   - attempt: One try; it classifies its own failure.
    ///   - willRetry: Told before each wait (attempt number, failure, wait), for logs.
    ///   - random: The jitter source, `0...1`.
    ///   - sleep: Blocks for a wait; by default the calling thread sleeps.
    /// - Returns: The value of the first successful attempt.
    /// - Throws: ``RetryExhausted`` holding the last failure.
    package func runBlocking<Value, Failure: Error>(
        _ attempt: (_ number: Int) -> AttemptResult<Value, Failure>,
        willRetry: (_ number: Int, _ failure: Failure, _ wait: Duration) -> Void = { _, _, _ in },
        random: () -> Double = { Double.random(in: 0...1) },
        sleep: (Duration) -> Void = RetryPolicy.sleepThread
    ) throws(RetryExhausted<Failure>) -> Value {
        let started = ContinuousClock.now
        var number = 0, budgetSpent = false
        while true {
            number += 1
            switch try next(after: number, attempt(number), started: started, budgetSpent: budgetSpent, random: random) {
            case .done(let value): return value
            case .retry(let failure, let delay, let spendsBudget):
                budgetSpent = spendsBudget
                willRetry(number, failure, delay)
                sleep(delay)
            }
        }
    }

    /// Both loops' one decision after attempt `number`: done with its value, or the wait
    /// before the next attempt. An attempt after a wait that took the rest of the budget is
    /// the last, even when the sleep woke a little early (timers may): the clock alone would
    /// leave a sliver of budget and add waits of next to nothing.
    /// - Throws: ``RetryExhausted`` when the failure is not retryable or the attempts or
    ///   the budget are spent.
    private func next<Value, Failure: Error>(
        after number: Int, _ outcome: AttemptResult<Value, Failure>, started: ContinuousClock.Instant, budgetSpent: Bool,
        random: () -> Double
    ) throws(RetryExhausted<Failure>) -> Next<Value, Failure> {
        let (failure, retryable, retryAfter): (Failure, Bool, Duration?)
        switch outcome {
        case .success(let value): return .done(value)
        case .failure(let error, let canRetry, let after): (failure, retryable, retryAfter) = (error, canRetry, after)
        }
        let remaining = totalBudget - (ContinuousClock.now - started)
        guard retryable, maxAttempts > number, !budgetSpent, remaining > .zero else {
            throw RetryExhausted(failure: failure, attempts: number, cancelled: false)
        }
        let delay = wait(afterAttempt: number, retryAfter: retryAfter, remaining: remaining, random: random())
        return .retry(failure, wait: delay, spendsBudget: delay >= remaining)
    }

    /// Blocks the calling thread for `duration`.
    package static func sleepThread(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var request = timespec(tv_sec: .init(max(seconds, 0)), tv_nsec: .init(max(attoseconds, 0) / 1_000_000_000))
        var left = timespec()
        while nanosleep(&request, &left) != 0 && errno == EINTR { request = left }
    }
}

/// What the loops do after an attempt.
private enum Next<Value, Failure: Error> {
    /// Return the attempt's value.
    case done(Value)
    /// Wait, then try again; `spendsBudget` when the wait reaches the budget's end.
    case retry(Failure, wait: Duration, spendsBudget: Bool)
}

extension Duration {
    /// Whole milliseconds, for logs.
    package var wholeMilliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}
