/// Paces secret writes so a refresh run stays under the Secrets Manager quota
/// (PutSecretValue and UpdateSecretVersionStage share 50 requests/s per region).
///
/// Permits are spaced evenly, `1/rate` seconds apart, rather than handed out in bursts: any
/// one-second window then holds at most `rate` permits plus the last reservation's size.
public actor WriteRateLimiter {
    private let interval: Duration
    private var nextFree: ContinuousClock.Instant

    /// Creates a limiter for `writesPerSecond` (at least 1).
    public init(writesPerSecond: Int) {
        interval = .nanoseconds(1_000_000_000 / max(writesPerSecond, 1))
        nextFree = .now
    }

    /// Waits until `writes` permits are free, then takes them.
    /// - Throws: `CancellationError` when the task is cancelled while waiting.
    public func acquire(_ writes: Int = 1) async throws {
        let now = ContinuousClock.now
        let start = max(now, nextFree)
        nextFree = start + interval * writes
        if start > now { try await Task.sleep(until: start, clock: .continuous) }
    }
}
