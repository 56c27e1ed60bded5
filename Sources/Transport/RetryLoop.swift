/// What one attempt came to, as the client that made it judges it.
public enum AttemptResult<Value, Failure: Error> {
    /// The call worked.
    case success(Value)
    /// The call failed; `retryable` says whether another attempt may help, `retryAfter`
    /// what the server asked for (HTTP `Retry-After`), if anything.
    case failure(Failure, retryable: Bool, retryAfter: Duration? = nil)
}

/// Why a retried call ended without success.
public struct RetryExhausted<Failure: Error>: Error {
    /// The last attempt's failure.
    public let failure: Failure
    /// How many attempts were made.
    public let attempts: Int
    /// Whether the task's cancellation, not the failure, ended the retries.
    public let cancelled: Bool
}

extension RetryPolicy {
    /// Runs `attempt` (numbered from 1) until it succeeds, fails in a way not worth
    /// retrying, or the attempts, the time budget or the task run out; between attempts it
    /// waits as ``wait(afterAttempt:retryAfter:remaining:random:)`` says.
    ///
    /// - Parameters:
    ///   - attempt: One try; it classifies its own failure.
    ///   - willRetry: Told before each wait (attempt number, failure, wait), for logs.
    ///   - random: The jitter source, `0...1`.
    /// - Returns: The value of the first successful attempt.
    /// - Throws: ``RetryExhausted`` holding the last failure.
    public func run<Value, Failure: Error>(
        _ attempt: (_ number: Int) async -> AttemptResult<Value, Failure>,
        willRetry: (_ number: Int, _ failure: Failure, _ wait: Duration) -> Void = { _, _, _ in },
        random: () -> Double = { Double.random(in: 0...1) }
    ) async throws(RetryExhausted<Failure>) -> Value {
        let started = ContinuousClock.now
        var number = 0
        while true {
            number += 1
            let (failure, retryable, retryAfter): (Failure, Bool, Duration?)
            switch await attempt(number) {
            case .success(let value): return value
            case .failure(let error, let canRetry, let after): (failure, retryable, retryAfter) = (error, canRetry, after)
            }
            let remaining = totalBudget - (ContinuousClock.now - started)
            guard retryable, maxAttempts > number, remaining > .zero else {
                throw RetryExhausted(failure: failure, attempts: number, cancelled: false)
            }
            guard !Task.isCancelled else { throw RetryExhausted(failure: failure, attempts: number, cancelled: true) }
            let delay = wait(afterAttempt: number, retryAfter: retryAfter, remaining: remaining, random: random())
            willRetry(number, failure, delay)
            do {
                try await Task.sleep(for: delay)
            } catch {
                throw RetryExhausted(failure: failure, attempts: number, cancelled: true)
            }
        }
    }
}

extension Duration {
    /// Whole milliseconds, for logs.
    public var wholeMilliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}
