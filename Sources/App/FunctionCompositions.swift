import PayPulseDomain
import PayPulseHandlers
import PayPulsePorts
import PayPulseRuntime

/// Each function's composition, one screen each: the adapters it builds are the ones it
/// uses, so a cold start pays for nothing else (user-profile: no Google client, no cipher;
/// token-refresh and fresh-token: no JWT key). Beside each, its reach: the grant
/// operations, users and secrets its handler can touch, from which `paypulse iam` derives
/// its IAM statements (`FunctionReachTests` runs each composition to prove the reach exact).
extension Assembly {
    /// The event handlers of one function, built once (keys, clients) for many events.
    ///
    /// - Parameters:
    ///   - name: The function.
    ///   - metrics: Where the refresh run's metrics go.
    /// - Throws: ``ConfigurationError`` or a store's error when a part cannot be built.
    package func eventHandlers(for name: HandlerName, metrics: any MetricsSink = StandardErrorMetricsSink()) async throws -> EventHandlers {
        switch name {
        case .storeTokens: try await storeTokens(metrics: metrics)
        case .userProfile: try await userProfile()
        case .disconnect: try await disconnect(metrics: metrics)
        case .freshToken: try freshToken(metrics: metrics)
        case .tokenRefresh: try tokenRefresh(metrics: metrics)
        case .securityEvents: try securityEvents(metrics: metrics)
        }
    }

    /// What `function`'s composition can reach.
    package static func reach(of name: HandlerName) -> FunctionOperations {
        switch name {
        case .storeTokens: storeTokensReach
        case .userProfile: userProfileReach
        case .disconnect: disconnectReach
        case .freshToken: freshTokenReach
        case .securityEvents: securityEventsReach
        case .tokenRefresh: tokenRefreshReach
        }
    }

    /// `TokenVault.store`: read; create, or restore and mark; replace (then, on a store that
    /// tags apart from the value, the state, to re-tag if overtaken); each post counted first.
    /// Then Google's word on the account, and a mark (or a purge's delete) when it overrules.
    static let storeTokensReach = FunctionOperations(
        grants: [.read, .create, .restore, .mark, .replace, .state, .delete], readsUsers: false, secrets: [.jwtKey, .googleClientID],
        countsPosts: true, publishesEvents: true, readsGoogleWord: true
    )

    private func storeTokens(metrics: any MetricsSink) async throws -> EventHandlers {
        let secrets = try secretStore(), grants = try grantStore(), google = googleOAuth()
        let guardian = try await requestGuard(secrets)
        let clients = CachedGoogleClients(secrets: secrets, secretID: configuration.google.clientIDSecretID)
        let verifier = GrantVerifier(google: google, clients: { try await clients.value() }, health: OAuthClientHealth(google: google))
        let vault = TokenVault(
            grants: grants, digester: { try await clients.value().tokenDigester }, events: try lifecyclePublisher(metrics: metrics),
            googleWord: try googleWordCheck()
        )
        let handler = StoreTokensHandler(guardian: guardian, quota: try requestQuota(), vault: vault, verifier: verifier, metrics: metrics)
        return EventHandlers(http: handler.handle)
    }

    /// `TokenVault.connectionState` through ``GrantStates`` (no value), and the profile.
    static let userProfileReach = FunctionOperations(grants: [.state], readsUsers: true, secrets: [.jwtKey])

    private func userProfile() async throws -> EventHandlers {
        let users = try userDirectory(), grants = try grantStates()
        let secrets = try secretStore()
        let guardian = try await requestGuard(secrets)
        return EventHandlers(http: UserProfileHandler(guardian: guardian, users: users, grants: grants).handle)
    }

    /// `TokenVault.current` and `.disconnect`: read, mark revoked by a replace (or re-tag a
    /// set already revoked), delete (once its event is out).
    static let disconnectReach = FunctionOperations(
        grants: [.read, .replace, .mark, .delete, .state], readsUsers: false, secrets: [.jwtKey], publishesEvents: true
    )

    private func disconnect(metrics: any MetricsSink) async throws -> EventHandlers {
        let grants = try grantStore()
        let secrets = try secretStore()
        let guardian = try await requestGuard(secrets)
        let handler = DisconnectHandler(
            guardian: guardian, vault: TokenVault(grants: grants, events: try lifecyclePublisher(metrics: metrics)), google: googleOAuth(),
            recoveryWindowDays: configuration.disconnectRecoveryDays
        )
        return EventHandlers(http: handler.handle)
    }

    /// `TokenRefresher.freshTokenSet`: read, Google's word on the account (a replace, or a
    /// purge's delete, when it overrules), and replace when due.
    /// With events pending, publish them first (and delete a disconnected grant they held).
    static let freshTokenReach = FunctionOperations(
        grants: [.read, .replace, .state, .delete], readsUsers: false, secrets: [.googleClientID], publishesEvents: true, readsGoogleWord: true
    )

    private func freshToken(metrics: any MetricsSink) throws -> EventHandlers {
        let clients = CachedGoogleClients(secrets: try secretStore(), secretID: configuration.google.clientIDSecretID)
        let vault = TokenVault(
            grants: try grantStore(), digester: { try await clients.value().tokenDigester }, events: try lifecyclePublisher(metrics: metrics),
            googleWord: try googleWordCheck()
        )
        let refresher = TokenRefresher(
            vault: vault, google: googleOAuth(),
            clients: { try await clients.value() },
            windowSeconds: configuration.refresh.windowSeconds
        )
        return EventHandlers(direct: FreshTokenHandler(tokens: FreshTokens(refresher: refresher)).handle)
    }

    /// `RefreshJob` (listDue) and `TokenRefresher.refreshIfDue`: read, replace, or mark a
    /// grant Google refused; the outbox's sweep, which deletes a disconnected grant once its
    /// event is out.
    /// Google's word recorded on accounts lately, applied to the grants found by account.
    static let tokenRefreshReach = FunctionOperations(
        grants: [.listDue, .findByAttribute, .read, .replace, .mark, .state, .delete], readsUsers: false, secrets: [.googleClientID],
        publishesEvents: true, readsGoogleWord: true
    )

    /// A job per run: the client IDs are read once per run, so a rotated secret is picked up
    /// by the next run without a redeploy.
    private func tokenRefresh(metrics: any MetricsSink) throws -> EventHandlers {
        let secrets = try secretStore(), grants = try grantStore(), google = googleOAuth(), settings = configuration.refresh
        let clientIDSecret = configuration.google.clientIDSecretID
        let events = try lifecyclePublisher(metrics: metrics), googleWord = try googleWordCheck()
        let handler = TokenRefreshHandler(metrics: metrics) {
            let clients = try await GoogleClients.load(from: secrets, secretID: clientIDSecret)
            let vault = TokenVault(grants: grants, digester: { clients.tokenDigester }, events: events, googleWord: googleWord)
            let refresher = TokenRefresher(
                vault: vault, google: google, clients: clients, windowSeconds: settings.windowSeconds,
                keepAliveSeconds: settings.keepAlive, limiter: WriteRateLimiter(writesPerSecond: settings.maxWritesPerSecond)
            )
            let catchUp = GoogleAccountEvents(vault: vault, recoveryWindowDays: googleWord.recoveryWindowDays, words: googleWord.words)
            return RefreshJob(grants: grants, refresher: refresher, settings: settings, googleWord: catchUp)
        }
        return EventHandlers(scheduled: { event, context in try await handler.handle(detail: event.detail, context: context) })
    }

    /// `GoogleAccountEvents`: find the account's grants (by subject, or by a refresh token's
    /// digest); read, replace (and re-tag if
    /// overtaken), or mark revoked and delete (a purge); the ledger of events acted on.
    static let securityEventsReach = FunctionOperations(
        grants: [.findByAttribute, .read, .replace, .mark, .state, .delete], readsUsers: false, secrets: [.googleClientID],
        recordsSecurityEvents: true, publishesEvents: true, readsGoogleWord: true
    )

    /// No PayPulse JWT: the token is its own credential, verified under Google's RISC keys
    /// (kept across warm invocations) against our client IDs.
    private func securityEvents(metrics: any MetricsSink) throws -> EventHandlers {
        let secrets = try secretStore(), grants = try grantStore()
        let clients = CachedGoogleClients(secrets: secrets, secretID: configuration.google.clientIDSecretID)
        let handler = SecurityEventsHandler(
            verifier: SecurityEventVerifier(keys: securityEventKeys(), clientIDs: { try await clients.value().ids }),
            events: GoogleAccountEvents(
                vault: TokenVault(grants: grants, digester: { try await clients.value().tokenDigester }, events: try lifecyclePublisher(metrics: metrics)),
                recoveryWindowDays: configuration.disconnectRecoveryDays, words: try googleAccountWords()
            ),
            ledger: try securityEventLedger(), metrics: metrics
        )
        return EventHandlers(http: handler.handle)
    }

    // Not inlined: Swift 6.3.1's release build crashes (signal 11, LLVM's coroutine split)
    // on a composition with this async call inlined into it.
    @inline(never)
    private func requestGuard(_ secrets: any SecretStore) async throws -> RequestGuard {
        RequestGuard(authenticator: try await authenticator(secrets: secrets))
    }
}
