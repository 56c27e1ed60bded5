/// How a client retries a transient failure (throttling, 5xx, timeouts, broken
/// connections): exponential backoff with full jitter, bounded in attempts and in total
/// time, honouring a server's `Retry-After` when it fits. AWS and Google calls use it alike.
///
/// Attempt n (from 1) is followed by a random wait in `0...min(maxDelay, baseDelay * 2^(n-1))`,
/// the "full jitter" of the AWS Architecture Blog, so that many clients throttled together
/// spread out instead of retrying in lockstep.
public struct RetryPolicy: Sendable, Equatable {
    /// How many attempts in all, the first included.
    public var maxAttempts: Int
    /// The upper bound of the first wait.
    public var baseDelay: Duration
    /// The upper bound of any one wait.
    public var maxDelay: Duration
    /// No new attempt starts once this much time has passed since the first began.
    public var totalBudget: Duration
    /// The limit for one whole exchange (connect, send, answer).
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

    /// AWS calls inside a request: four attempts within ten seconds, five seconds each.
    public static let aws = RetryPolicy(attemptTimeout: .seconds(5))

    /// Google's OAuth endpoints: three attempts within eight seconds, ten seconds each
    /// (Google answers a refresh more slowly than a loopback-close AWS endpoint).
    public static let google = RetryPolicy(
        maxAttempts: 3, baseDelay: .milliseconds(200), maxDelay: .seconds(2), totalBudget: .seconds(8), attemptTimeout: .seconds(10)
    )

    /// One attempt, no retry: for callers (and tests) that count calls.
    public static let none = RetryPolicy(maxAttempts: 1)

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
}

extension RetryPolicy {
    /// The same policy with another per-attempt limit.
    public func withAttemptTimeout(_ timeout: Duration) -> RetryPolicy {
        var policy = self
        policy.attemptTimeout = timeout
        return policy
    }
}
