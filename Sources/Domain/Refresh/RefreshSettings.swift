/// How a refresh run behaves.
package struct RefreshSettings: Sendable, Equatable {
    /// Sets expiring within this many seconds are refreshed (`REFRESH_WINDOW_SECONDS`).
    package var windowSeconds: Int
    /// How many grants are refreshed at once (`REFRESH_CONCURRENCY`).
    package var concurrency: Int
    /// The write budget (`REFRESH_MAX_WRITES_PER_SECOND`); each compare-and-swap takes
    /// ``TokenRefresher/permitsPerWrite`` (one: a `PutSecretValue` on Secrets Manager, an
    /// `UpdateItem` on DynamoDB).
    package var maxWritesPerSecond: Int
    /// No new grant is started when less than this remains before the deadline
    /// (`REFRESH_STOP_MARGIN_SECONDS`).
    package var stopMarginSeconds: Int
    /// Which grants a run takes (`REFRESH_MODE`).
    package var mode: RefreshMode
    /// In ``RefreshMode/keepalive``, a grant is due once its last refresh or verification
    /// is this old (`KEEPALIVE_SECONDS`).
    package var keepAliveSeconds: Int
    /// How far back a run applies Google's recorded word on accounts to the grants the
    /// listing shows (`GOOGLE_WORD_LAG_SECONDS`): longer than a listing may lag behind a
    /// write (Secrets Manager: five minutes) plus the schedule's interval, so every event
    /// whose receiver a listing hid a grant from meets a run that sees the grant.
    package var googleWordLagSeconds: Int

    /// The `REFRESH_MAX_WRITES_PER_SECOND` values the configuration accepts.
    package static let acceptedWritesPerSecond = 1...10_000

    /// Creates settings (defaults: 900 s window, 8 at once, 20 writes/s, 30 s margin,
    /// eager, a day's keep-alive,
    /// ten minutes of Google's word).
    package init(
        windowSeconds: Int = 900, concurrency: Int = 8, maxWritesPerSecond: Int = 20, stopMarginSeconds: Int = 30,
        mode: RefreshMode = .eager, keepAliveSeconds: Int = 86_400, googleWordLagSeconds: Int = 600
    ) {
        self.googleWordLagSeconds = googleWordLagSeconds
        self.windowSeconds = windowSeconds
        self.concurrency = concurrency
        self.maxWritesPerSecond = maxWritesPerSecond
        self.stopMarginSeconds = stopMarginSeconds
        self.mode = mode
        self.keepAliveSeconds = keepAliveSeconds
    }

    /// The keep-alive interval when the mode uses one.
    package var keepAlive: Int? { mode == .keepalive ? keepAliveSeconds : nil }
}

/// How the scheduled refresh chooses grants (`REFRESH_MODE`).
package enum RefreshMode: String, Sendable, Equatable, CaseIterable {
    /// Every grant's access token is kept fresh: refreshed when it expires within the
    /// window (about 30 refreshes per grant a day). The default.
    case eager
    /// Grants are only kept alive: refreshed when the last successful refresh or
    /// verification is older than the keep-alive interval, so revocations are found within
    /// it and refresh tokens never idle toward Google's six-month expiry; access tokens
    /// are fetched on demand (the `fresh-token` function).
    case keepalive
}
