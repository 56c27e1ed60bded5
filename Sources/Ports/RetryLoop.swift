#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

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
    /// waits as ``wait(afterAttempt:retryAfter:remaining:random:)`` says, suspending the task.
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
            let outcome = await attempt(number)
            switch try next(after: number, outcome, started: started, random: random) {
            case .done(let value): return value
            case .retry(let failure, let delay):
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
    public func runBlocking<Value, Failure: Error>(
        _ attempt: (_ number: Int) -> AttemptResult<Value, Failure>,
        willRetry: (_ number: Int, _ failure: Failure, _ wait: Duration) -> Void = { _, _, _ in },
        random: () -> Double = { Double.random(in: 0...1) },
        sleep: (Duration) -> Void = RetryPolicy.sleepThread
    ) throws(RetryExhausted<Failure>) -> Value {
        let started = ContinuousClock.now
        var number = 0
        while true {
            number += 1
            switch try next(after: number, attempt(number), started: started, random: random) {
            case .done(let value): return value
            case .retry(let failure, let delay):
                willRetry(number, failure, delay)
                sleep(delay)
            }
        }
    }

    /// Both loops' one decision after attempt `number`: done with its value, or the wait
    /// before the next attempt.
    /// - Throws: ``RetryExhausted`` when the failure is not retryable or the attempts or
    ///   the budget are spent.
    private func next<Value, Failure: Error>(
        after number: Int, _ outcome: AttemptResult<Value, Failure>, started: ContinuousClock.Instant, random: () -> Double
    ) throws(RetryExhausted<Failure>) -> Next<Value, Failure> {
        let (failure, retryable, retryAfter): (Failure, Bool, Duration?)
        switch outcome {
        case .success(let value): return .done(value)
        case .failure(let error, let canRetry, let after): (failure, retryable, retryAfter) = (error, canRetry, after)
        }
        let remaining = totalBudget - (ContinuousClock.now - started)
        guard retryable, maxAttempts > number, remaining > .zero else {
            throw RetryExhausted(failure: failure, attempts: number, cancelled: false)
        }
        return .retry(failure, wait: wait(afterAttempt: number, retryAfter: retryAfter, remaining: remaining, random: random()))
    }

    /// Blocks the calling thread for `duration`.
    public static func sleepThread(_ duration: Duration) {
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
    /// Wait, then try again.
    case retry(Failure, wait: Duration)
}

extension Duration {
    /// Whole milliseconds, for logs.
    public var wholeMilliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}
