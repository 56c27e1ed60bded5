/// How a refresh run behaves.
public struct RefreshSettings: Sendable, Equatable {
    /// Sets expiring within this many seconds are refreshed (`REFRESH_WINDOW_SECONDS`).
    public var windowSeconds: Int
    /// How many grants are refreshed at once (`REFRESH_CONCURRENCY`).
    public var concurrency: Int
    /// The write budget (`REFRESH_MAX_WRITES_PER_SECOND`); each compare-and-swap costs two.
    public var maxWritesPerSecond: Int
    /// No new grant is started when less than this remains before the deadline
    /// (`REFRESH_STOP_MARGIN_SECONDS`).
    public var stopMarginSeconds: Int

    /// Creates settings (defaults: 900 s window, 8 at once, 20 writes/s, 30 s margin).
    public init(windowSeconds: Int = 900, concurrency: Int = 8, maxWritesPerSecond: Int = 20, stopMarginSeconds: Int = 30) {
        self.windowSeconds = windowSeconds
        self.concurrency = concurrency
        self.maxWritesPerSecond = maxWritesPerSecond
        self.stopMarginSeconds = stopMarginSeconds
    }
}
