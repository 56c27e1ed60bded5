import PayPulseDomain
import PayPulseHandlers
import PayPulsePorts
import PayPulseRuntime

extension Assembly {
    /// The event handlers of one function, built once (keys, clients) for many events.
    public func eventHandlers(for name: HandlerName, metrics: any MetricsSink = StandardErrorMetricsSink()) throws -> EventHandlers {
        let vault = TokenVault(grants: backends.grants)
        switch name {
        case .storeTokens:
            let clientID = CachedClientID(secrets: backends.secrets, secretID: configuration.google.clientIDSecretID)
            let verifier = GrantVerifier(google: google, clientID: { try await clientID.value() }, health: OAuthClientHealth(google: google))
            let handler = StoreTokensHandler(guardian: try guardian(), vault: vault, verifier: verifier)
            return EventHandlers(http: handler.handle)
        case .userProfile:
            return EventHandlers(http: UserProfileHandler(guardian: try guardian(), users: backends.users, vault: vault).handle)
        case .disconnect:
            let handler = DisconnectHandler(
                guardian: try guardian(), vault: vault, google: google, recoveryWindowDays: configuration.disconnectRecoveryDays
            )
            return EventHandlers(http: handler.handle)
        case .freshToken:
            let clientID = CachedClientID(secrets: backends.secrets, secretID: configuration.google.clientIDSecretID)
            let refresher = TokenRefresher(
                vault: vault, google: google, clientID: { try await clientID.value() }, windowSeconds: configuration.refresh.windowSeconds
            )
            return EventHandlers(direct: FreshTokenHandler(tokens: FreshTokens(refresher: refresher)).handle)
        case .tokenRefresh:
            let handler = TokenRefreshHandler(metrics: metrics, makeJob: refreshJobFactory(vault: vault))
            return EventHandlers(scheduled: { event, context in try await handler.handle(detail: event.detail, context: context) })
        }
    }

    private func guardian() throws -> RequestGuard {
        guard let authSettings else {
            throw ConfigurationError(variable: "PAYPULSE_JWT_SECRET", problem: "this process was started without JWT settings")
        }
        return RequestGuard(authenticator: try Authenticator(settings: authSettings))
    }

    /// Builds a job per run: the client ID is read once per run, so a rotated secret is
    /// picked up by the next run without a redeploy.
    private func refreshJobFactory(vault: TokenVault) -> @Sendable () async throws -> RefreshJob {
        let secrets = backends.secrets, grants = backends.grants, google = google, settings = configuration.refresh
        let clientIDSecret = configuration.google.clientIDSecretID
        return {
            let clientID = try await GoogleClientID.load(from: secrets, secretID: clientIDSecret)
            let refresher = TokenRefresher(
                vault: vault, google: google, clientID: clientID, windowSeconds: settings.windowSeconds, keepAliveSeconds: settings.keepAlive,
                limiter: WriteRateLimiter(writesPerSecond: settings.maxWritesPerSecond)
            )
            return RefreshJob(grants: grants, refresher: refresher, settings: settings)
        }
    }
}
