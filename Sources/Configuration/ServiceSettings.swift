import PayPulseDomain

/// Google's endpoints and where the iOS client ID lives.
public struct GoogleSettings: Sendable, Equatable {
    /// `GOOGLE_TOKEN_ENDPOINT`.
    public var tokenEndpoint: String
    /// `GOOGLE_REVOKE_ENDPOINT`.
    public var revokeEndpoint: String
    /// `GOOGLE_CLIENT_ID_SECRET_ID`: the secret holding the iOS client ID.
    public var clientIDSecretID: String

    /// Creates settings (Google's production endpoints, secret `Google-OAuth-Client-ID`).
    public init(
        tokenEndpoint: String = "https://oauth2.googleapis.com/token", revokeEndpoint: String = "https://oauth2.googleapis.com/revoke",
        clientIDSecretID: String = "Google-OAuth-Client-ID"
    ) {
        self.tokenEndpoint = tokenEndpoint
        self.revokeEndpoint = revokeEndpoint
        self.clientIDSecretID = clientIDSecretID
    }
}

extension AppConfiguration {
    /// Reads the Google, refresh and disconnect settings.
    /// - Throws: ``ConfigurationError`` naming the bad variable.
    static func serviceSettings(_ value: (String) -> String?) throws -> (GoogleSettings, RefreshSettings, Int) {
        var google = GoogleSettings()
        for (variable, keyPath) in [("GOOGLE_TOKEN_ENDPOINT", \GoogleSettings.tokenEndpoint), ("GOOGLE_REVOKE_ENDPOINT", \GoogleSettings.revokeEndpoint)] {
            guard let endpoint = value(variable) else { continue }
            guard endpoint.hasPrefix("https://") || endpoint.hasPrefix("http://"), endpoint.count > "https://".count else {
                throw ConfigurationError(variable: variable, problem: "expected an http(s):// URL, got '\(endpoint)'")
            }
            google[keyPath: keyPath] = endpoint
        }
        if let id = value("GOOGLE_CLIENT_ID_SECRET_ID") { google.clientIDSecretID = id }

        func integer(_ variable: String, default fallback: Int, range: ClosedRange<Int>) throws -> Int {
            guard let raw = value(variable) else { return fallback }
            guard let number = Int(raw), range.contains(number) else {
                throw ConfigurationError(variable: variable, problem: "expected a whole number in \(range.lowerBound)...\(range.upperBound), got '\(raw)'")
            }
            return number
        }
        let refresh = RefreshSettings(
            windowSeconds: try integer("REFRESH_WINDOW_SECONDS", default: 900, range: 0...86_400),
            concurrency: try integer("REFRESH_CONCURRENCY", default: 8, range: 1...256),
            maxWritesPerSecond: try integer("REFRESH_MAX_WRITES_PER_SECOND", default: 20, range: 1...10_000),
            stopMarginSeconds: try integer("REFRESH_STOP_MARGIN_SECONDS", default: 30, range: 0...900)
        )
        let recoveryDays = try integer("DISCONNECT_RECOVERY_DAYS", default: 7, range: 7...30)
        return (google, refresh, recoveryDays)
    }
}
