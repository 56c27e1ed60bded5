/// Paces a store's writes so a refresh run (or a migration) stays under the store's write
/// quota: on Secrets Manager `PutSecretValue` counts against 50 writes a second per region,
/// shared with every other writer; on DynamoDB each write also moves the grant's due-index
/// entry, and one partition key of that index takes 1,000 write units a second
/// (docs/operating.md, "Parameters").
///
/// Permits are spaced evenly, `1/rate` seconds apart, rather than handed out in bursts: any
/// one-second window then holds at most `rate` permits plus the last reservation's size.
package actor WriteRateLimiter {
    private let interval: Duration
    private var nextFree: ContinuousClock.Instant
    private let onGrant: (@Sendable (_ start: ContinuousClock.Instant, _ writes: Int) -> Void)?

    /// Creates a limiter for `writesPerSecond` (at least 1).
    /// - Parameter onGrant: told each reservation's start and size as it is granted (tests
    ///   check the pacing on these instants, which no scheduling delay can move).
    package init(writesPerSecond: Int, onGrant: (@Sendable (_ start: ContinuousClock.Instant, _ writes: Int) -> Void)? = nil) {
        interval = .nanoseconds(1_000_000_000 / max(writesPerSecond, 1))
        nextFree = .now
        self.onGrant = onGrant
    }

    /// Waits until `writes` permits are free, then takes them.
    /// - Throws: `CancellationError` when the task is cancelled while waiting.
    package func acquire(_ writes: Int = 1) async throws {
        let now = ContinuousClock.now
        let start = max(now, nextFree)
        nextFree = start + interval * writes
        onGrant?(start, writes)
        if start > now { try await Task.sleep(until: start, clock: .continuous) }
    }
}
