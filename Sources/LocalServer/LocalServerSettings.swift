import PayPulseFakeGoogle

/// What `paypulse serve` was asked for on its command line.
package struct LocalServerSettings: Sendable {
    /// The address to listen on; loopback unless the developer chooses otherwise.
    package var host: String
    /// The port; 0 picks a free one (printed once listening).
    package var port: Int
    /// Whether to answer Google's token and revoke endpoints here, under `/fake-google/`,
    /// and point the handlers at them (no network needed).
    package var fakeGoogle: Bool
    /// Whether to run a local identity provider here (``LocalIssuer``) and have the API
    /// functions verify its RS256 / ES256 tokens (`PAYPULSE_AUTH_MODE=jwks`).
    package var issuer: Bool
    /// Grants the stand-in Google knows from the start, besides the documented local one.
    package var grants: [FakeGoogleGrantSpec]
    /// How often to run the refresh job; `nil` never on its own.
    package var refreshEvery: Duration?
    /// Where each lifecycle event is also POSTed (`--events-webhook`), besides the store's table.
    package var eventsWebhook: String?
    /// How long a connection may send nothing (or only part of a request head) before it is closed.
    package var idleTimeout: Duration
    /// How long a request's body may take once its head has arrived: then 408 and the
    /// connection is closed.
    package var readTimeout: Duration
    /// How long a stop (SIGINT, SIGTERM) waits for requests in progress before it closes
    /// every connection.
    package var shutdownGrace: Duration

    /// Creates settings.
    package init(host: String = "127.0.0.1", port: Int = 8080, fakeGoogle: Bool = false, issuer: Bool = false, grants: [FakeGoogleGrantSpec] = [], refreshEvery: Duration? = nil,
        eventsWebhook: String? = nil, idleTimeout: Duration = .seconds(30), readTimeout: Duration = .seconds(30), shutdownGrace: Duration = .seconds(5)
    ) {
        self.host = host
        self.port = port
        self.fakeGoogle = fakeGoogle
        self.issuer = issuer
        self.grants = grants
        self.refreshEvery = refreshEvery
        self.eventsWebhook = eventsWebhook
        self.idleTimeout = idleTimeout
        self.readTimeout = readTimeout
        self.shutdownGrace = shutdownGrace
    }
}
