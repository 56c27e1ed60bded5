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
public struct RetryPolicy: Sendable, Equatable {
    /// How many attempts in all, the first included.
    public var maxAttempts: Int
    /// The upper bound of the first wait.
    public var baseDelay: Duration
    /// The upper bound of any one wait.
    public var maxDelay: Duration
    /// No new attempt starts once this much time has passed since the first began.
    public var totalBudget: Duration
    /// The limit for one whole exchange (connect, send, answer), for callers that bound an
    /// attempt (network clients); the others leave it at its default.
    public var attemptTimeout: Duration

    /// Creates a policy (by default four attempts within ten seconds, ten seconds each).
    public init(
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
    public func backoff(afterAttempt attempt: Int, random: Double) -> Duration {
        let exponent = min(max(attempt - 1, 0), 30)
        let ceiling = min(maxDelay, baseDelay * (1 << exponent))
        return ceiling * min(max(random, 0), 1)
    }

    /// The wait before the next attempt: the server's `Retry-After` when it fits in what is
    /// left of the budget (it knows best when it will take us again), else the jittered
    /// backoff; never past the end of the budget.
    public func wait(afterAttempt attempt: Int, retryAfter: Duration?, remaining: Duration, random: Double) -> Duration {
        if let retryAfter, retryAfter >= .zero, retryAfter <= remaining { return retryAfter }
        return min(backoff(afterAttempt: attempt, random: random), max(remaining, .zero))
    }

    /// The same policy with another per-attempt limit.
    public func withAttemptTimeout(_ timeout: Duration) -> RetryPolicy {
        var policy = self
        policy.attemptTimeout = timeout
        return policy
    }
}

extension RetryPolicy {
    /// AWS calls inside a request: four attempts within ten seconds, five seconds each.
    public static let aws = RetryPolicy(attemptTimeout: .seconds(5))

    /// Google's OAuth endpoints: three attempts within eight seconds, ten seconds each
    /// (Google answers a refresh more slowly than a loopback-close AWS endpoint).
    public static let google = RetryPolicy(
        maxAttempts: 3, baseDelay: .milliseconds(200), maxDelay: .seconds(2), totalBudget: .seconds(8), attemptTimeout: .seconds(10)
    )

    /// A store of the app's tokens that lost a compare-and-swap race (to a refresh about
    /// to finish, or another store): sixteen attempts, waits of up to 1, 2, 4, 8, then
    /// 16 ms, so writers that collided spread out. The budget is API Gateway's 29 s
    /// integration limit: past it nobody waits for the answer.
    public static let lostRace = RetryPolicy(
        maxAttempts: 16, baseDelay: .milliseconds(1), maxDelay: .milliseconds(16), totalBudget: .seconds(29)
    )

    /// A SQLite transaction that still found the file busy after SQLite's own busy timeout
    /// (another process holds the lock): five attempts, waits of up to 40, 80, 160, then
    /// 200 ms. The budget leaves room for SQLite's five-second timeout in every attempt.
    public static let sqliteBusy = RetryPolicy(
        maxAttempts: 5, baseDelay: .milliseconds(40), maxDelay: .milliseconds(200), totalBudget: .seconds(30)
    )

    /// One attempt, no retry: for callers (and tests) that count calls.
    public static let none = RetryPolicy(maxAttempts: 1)
}
