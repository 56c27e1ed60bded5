import PayPulseApp
import PayPulseDomain
import Testing

@Suite("Google, refresh and disconnect settings")
struct ServiceSettingsTests {
    @Test("defaults: Google's endpoints, Google-OAuth-Client-ID, 900 s window, 8 at once, 20 writes/s, 7 days")
    func defaults() throws {
        let configuration = try AppConfiguration.fromEnvironment([:])
        #expect(configuration.google == GoogleSettings())
        #expect(configuration.google.tokenEndpoint == "https://oauth2.googleapis.com/token")
        #expect(configuration.google.revokeEndpoint == "https://oauth2.googleapis.com/revoke")
        #expect(configuration.google.clientIDSecretID == "Google-OAuth-Client-ID")
        #expect(configuration.refresh == RefreshSettings(windowSeconds: 900, concurrency: 8, maxWritesPerSecond: 20, stopMarginSeconds: 30))
        #expect(configuration.refresh.mode == .eager && configuration.refresh.keepAliveSeconds == 86_400 && configuration.refresh.keepAlive == nil)
        #expect(configuration.disconnectRecoveryDays == 7)
    }

    @Test("every variable is read")
    func overrides() throws {
        let configuration = try AppConfiguration.fromEnvironment([
            "GOOGLE_TOKEN_ENDPOINT": "http://127.0.0.1:9000/token", "GOOGLE_REVOKE_ENDPOINT": "http://127.0.0.1:9000/revoke",
            "GOOGLE_CLIENT_ID_SECRET_ID": "other-secret", "REFRESH_WINDOW_SECONDS": "600", "REFRESH_CONCURRENCY": "4",
            "REFRESH_MAX_WRITES_PER_SECOND": "10", "REFRESH_STOP_MARGIN_SECONDS": "5", "DISCONNECT_RECOVERY_DAYS": "30",
            "REFRESH_MODE": "KeepAlive", "KEEPALIVE_SECONDS": "43200",
        ])
        #expect(configuration.google == GoogleSettings(tokenEndpoint: "http://127.0.0.1:9000/token", revokeEndpoint: "http://127.0.0.1:9000/revoke", clientIDSecretID: "other-secret"))
        #expect(
            configuration.refresh
                == RefreshSettings(windowSeconds: 600, concurrency: 4, maxWritesPerSecond: 10, stopMarginSeconds: 5, mode: .keepalive, keepAliveSeconds: 43_200)
        )
        #expect(configuration.refresh.keepAlive == 43_200)
        #expect(configuration.disconnectRecoveryDays == 30)
    }

    @Test(
        "bad values name their variable",
        arguments: [
            ("GOOGLE_TOKEN_ENDPOINT", "oauth2.googleapis.com/token"), ("REFRESH_WINDOW_SECONDS", "-1"), ("REFRESH_CONCURRENCY", "0"),
            ("REFRESH_CONCURRENCY", "many"), ("REFRESH_MAX_WRITES_PER_SECOND", "0"), ("DISCONNECT_RECOVERY_DAYS", "3"),
            ("DISCONNECT_RECOVERY_DAYS", "31"), ("REFRESH_MODE", "lazy"), ("KEEPALIVE_SECONDS", "0"), ("KEEPALIVE_SECONDS", "2592001"),
        ]
    )
    func badValues(variable: String, value: String) {
        #expect { try AppConfiguration.fromEnvironment([variable: value]) } throws: { ($0 as? ConfigurationError)?.variable == variable }
    }
}
