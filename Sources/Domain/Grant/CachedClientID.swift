import PayPulsePorts

/// The iOS OAuth client ID for long-lived processes (store-tokens in a warm Lambda): read
/// from its secret on first use and again after ``lifetime``, so a rotated secret is picked
/// up without a redeploy while most requests read nothing.
public actor CachedClientID {
    private let secrets: any SecretStore
    private let secretID: String
    private let lifetime: Duration
    private var cached: (value: String, at: ContinuousClock.Instant)?

    /// Creates a cache over the secret `secretID` in `secrets`.
    public init(secrets: any SecretStore, secretID: String, lifetime: Duration = .seconds(300)) {
        self.secrets = secrets
        self.secretID = secretID
        self.lifetime = lifetime
    }

    /// The client ID.
    /// - Throws: ``GoogleClientID/LoadError`` (missing or unusable secret: our
    ///   configuration), or `StoreError.unavailable`.
    public func value() async throws -> String {
        if let cached, ContinuousClock.now - cached.at < lifetime { return cached.value }
        let value = try await GoogleClientID.load(from: secrets, secretID: secretID)
        cached = (value, ContinuousClock.now)
        return value
    }
}
