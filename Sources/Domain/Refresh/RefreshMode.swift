/// How the scheduled refresh chooses grants (`REFRESH_MODE`).
public enum RefreshMode: String, Sendable, Equatable, CaseIterable {
    /// Every grant's access token is kept fresh: refreshed when it expires within the
    /// window (about 30 refreshes per grant a day). The default.
    case eager
    /// Grants are only kept alive: refreshed when the last successful refresh or
    /// verification is older than the keep-alive interval, so revocations are found within
    /// it and refresh tokens never idle toward Google's six-month expiry; access tokens
    /// are fetched on demand (the `fresh-token` function).
    case keepalive
}
