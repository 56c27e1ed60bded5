import PayPulseFakeGoogle

/// What `paypulse serve` was asked for on its command line.
public struct LocalServerSettings: Sendable {
    /// The address to listen on; loopback unless the developer chooses otherwise.
    public var host: String
    /// The port; 0 picks a free one (printed once listening).
    public var port: Int
    /// Whether to answer Google's token and revoke endpoints here, under `/fake-google/`,
    /// and point the handlers at them (no network needed).
    public var fakeGoogle: Bool
    /// Grants the stand-in Google knows from the start, besides the documented local one.
    public var grants: [FakeGoogleGrantSpec]
    /// How often to run the refresh job; `nil` never on its own.
    public var refreshEvery: Duration?

    /// Creates settings.
    public init(host: String = "127.0.0.1", port: Int = 8080, fakeGoogle: Bool = false, grants: [FakeGoogleGrantSpec] = [], refreshEvery: Duration? = nil) {
        self.host = host
        self.port = port
        self.fakeGoogle = fakeGoogle
        self.grants = grants
        self.refreshEvery = refreshEvery
    }
}
