#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseConfiguration
import PayPulseDomain
import PayPulseGoogle
import PayPulseHandlers
import PayPulsePorts
import PayPulseRuntime

/// The functions this backend deploys, by executable name.
public enum HandlerName: String, Sendable, CaseIterable {
    /// `POST /v1/auth/gmail-tokens`.
    case storeTokens = "store-tokens"
    /// `GET /v1/user/me`.
    case userProfile = "user-profile"
    /// The scheduled refresh of expiring grants.
    case tokenRefresh = "token-refresh"
    /// `DELETE /v1/auth/gmail-tokens`.
    case disconnect

    /// Whether the function serves an API route and so verifies JWTs.
    public var authenticates: Bool { self != .tokenRefresh }
}

extension AppEnvironment {
    /// Google's OAuth endpoints over the process's transport.
    public var google: any GoogleOAuth {
        GoogleOAuthClient(
            tokenEndpoint: configuration.google.tokenEndpoint, revokeEndpoint: configuration.google.revokeEndpoint,
            transport: transport, logger: logger
        )
    }

    /// The event handlers of one function, built once (keys, clients) for many events.
    public func eventHandlers(for name: HandlerName, metrics: any MetricsSink = StandardErrorMetricsSink()) async throws -> EventHandlers {
        let vault = TokenVault(secrets: backends.secrets)
        let logger = logger
        switch name {
        case .storeTokens:
            let clientID = CachedClientID(secrets: backends.secrets, secretID: configuration.google.clientIDSecretID)
            let verifier = GrantVerifier(google: google, clientID: { try await clientID.value() }, health: OAuthClientHealth(google: google))
            let handler = StoreTokensHandler(guardian: try await guardian(), vault: vault, verifier: verifier)
            return EventHandlers(http: { await handler.handle($0, logger: logger) })
        case .userProfile:
            let handler = UserProfileHandler(guardian: try await guardian(), users: backends.users, vault: vault)
            return EventHandlers(http: { await handler.handle($0, logger: logger) })
        case .disconnect:
            let handler = DisconnectHandler(
                guardian: try await guardian(), vault: vault, google: google, recoveryWindowDays: configuration.disconnectRecoveryDays
            )
            return EventHandlers(http: { await handler.handle($0, logger: logger) })
        case .tokenRefresh:
            let handler = TokenRefreshHandler(metrics: metrics, makeJob: refreshJobFactory(vault: vault))
            return EventHandlers(scheduled: { event in
                try await handler.handle(detail: event.detail, deadline: InvocationContext.current?.deadline, logger: logger)
            })
        }
    }

    private func guardian() async throws -> RequestGuard {
        guard let authSettings else { throw ConfigurationError(variable: "PAYPULSE_JWT_SECRET", problem: "this process was started without JWT settings") }
        return RequestGuard(authenticator: try Authenticator(settings: authSettings))
    }

    /// Builds a job per run: the client ID is read once per run, so a rotated secret is
    /// picked up by the next run without a redeploy.
    private func refreshJobFactory(vault: TokenVault) -> @Sendable () async throws -> RefreshJob {
        let secrets = backends.secrets, google = google, settings = configuration.refresh
        let clientIDSecret = configuration.google.clientIDSecretID
        return {
            let clientID = try await GoogleClientID.load(from: secrets, secretID: clientIDSecret)
            let refresher = TokenRefresher(
                vault: vault, google: google, clientID: clientID, windowSeconds: settings.windowSeconds,
                limiter: WriteRateLimiter(writesPerSecond: settings.maxWritesPerSecond)
            )
            return RefreshJob(secrets: secrets, refresher: refresher, settings: settings)
        }
    }
}
