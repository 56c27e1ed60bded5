/// Exponential backoff with full jitter, bounded in attempts and in total time.
///
/// Attempt n (from 0) waits a random time in `0...min(maxDelay, baseDelay * 2^n)`, the
/// "full jitter" of the AWS Architecture Blog, so that many clients throttled together
/// spread out instead of retrying in lockstep.
public struct RetryPolicy: Sendable {
    /// How many attempts in all, the first included.
    public var maxAttempts: Int
    /// The upper bound of the first wait.
    public var baseDelay: Duration
    /// The upper bound of any one wait.
    public var maxDelay: Duration
    /// No new attempt starts once this much time has passed since the first.
    public var totalBudget: Duration

    /// Creates a policy.
    public init(maxAttempts: Int = 4, baseDelay: Duration = .milliseconds(100), maxDelay: Duration = .seconds(2), totalBudget: Duration = .seconds(10)) {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.totalBudget = totalBudget
    }

    /// The default for AWS calls inside a request handler.
    public static let standard = RetryPolicy()

    /// No retries at all.
    public static let none = RetryPolicy(maxAttempts: 1)

    /// The wait before attempt `attempt + 1`, with `random` drawing from `0...1`.
    public func delay(afterAttempt attempt: Int, random: Double) -> Duration {
        let exponent = min(attempt, 30)
        let ceiling = min(maxDelay, baseDelay * (1 << exponent))
        return ceiling * min(max(random, 0), 1)
    }
}
