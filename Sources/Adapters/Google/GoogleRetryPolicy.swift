/// How ``GoogleOAuthClient`` retries a transient failure (429, 5xx, timeouts, broken
/// connections): exponential backoff with full jitter, bounded in attempts and in total time.
///
/// Attempt n (from 1) is followed by a random wait in `0...min(maxDelay, baseDelay * 2^(n-1))`,
/// so many refreshes throttled together spread out instead of retrying in lockstep.
public struct GoogleRetryPolicy: Sendable, Equatable {
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

    /// Creates a policy.
    public init(
        maxAttempts: Int = 3, baseDelay: Duration = .milliseconds(200), maxDelay: Duration = .seconds(2),
        totalBudget: Duration = .seconds(8), attemptTimeout: Duration = .seconds(10)
    ) {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.totalBudget = totalBudget
        self.attemptTimeout = attemptTimeout
    }

    /// Three attempts within eight seconds, ten seconds per attempt.
    public static let standard = GoogleRetryPolicy()

    /// One attempt, no retry: for callers (and tests) that count calls.
    public static let none = GoogleRetryPolicy(maxAttempts: 1)

    /// The jittered wait after attempt `attempt` (from 1), with `random` drawn from `0...1`.
    public func backoff(afterAttempt attempt: Int, random: Double) -> Duration {
        let exponent = min(max(attempt - 1, 0), 30)
        let ceiling = min(maxDelay, baseDelay * (1 << exponent))
        return ceiling * min(max(random, 0), 1)
    }

    /// The wait before the next attempt: the server's `Retry-After` when it fits in what is
    /// left of the budget (it knows best when it will take us again), else the jittered
    /// backoff; never past the end of the budget.
    func wait(afterAttempt attempt: Int, retryAfter: Duration?, remaining: Duration, random: Double) -> Duration {
        if let retryAfter, retryAfter >= .zero, retryAfter <= remaining { return retryAfter }
        return min(backoff(afterAttempt: attempt, random: random), max(remaining, .zero))
    }
}
