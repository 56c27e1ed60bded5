import Logging

/// Access tokens on demand for PayPulse's own Gmail readers (the `fresh-token` function):
/// the stored token while it lives, else one refresh, shared by every caller asking for
/// the same user meanwhile. Across processes the compare-and-swap decides: the loser reads
/// the winner's tokens instead of refreshing again (``TokenRefresher/freshTokenSet(for:logger:)``).
package actor FreshTokens {
    private let refresher: TokenRefresher
    private var flights: [UserID: Task<GmailTokenSet, any Error>] = [:]

    /// Creates the source over `refresher` (its window decides when a token is renewed).
    package init(refresher: TokenRefresher) {
        self.refresher = refresher
    }

    /// A token set with a usable access token for `user`.
    /// - Throws: ``TokenRefresher/FreshTokenError`` (the caller reads its code), or
    ///   ``TokenRefresher/ConfigurationFailure`` when our own client or settings are broken.
    package func tokenSet(for user: UserID, logger: Logger) async throws -> GmailTokenSet {
        if let flight = flights[user] { return try await flight.value }
        let refresher = refresher
        let flight = Task { try await refresher.freshTokenSet(for: user, logger: logger) }
        flights[user] = flight
        defer { flights[user] = nil }
        return try await flight.value
    }
}
