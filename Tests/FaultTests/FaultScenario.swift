import Foundation
import PayPulseAWS
import PayPulseDomain
import PayPulseHandlers
import PayPulseIssuerKeys
import PayPulsePorts
import PayPulseTestSupport
import PayPulseTransport

/// What one run of a handler answered.
enum HandlerResult: Sendable, CustomStringConvertible {
    /// An API route's response.
    case response(APIResponse)
    /// The refresh job's summary.
    case summary(RefreshSummary)
    /// The invocation failed; `transient` when it failed for an unavailable store.
    case failed(transient: Bool, String)

    var description: String {
        switch self {
        case .response(let response): "HTTP \(response.status) \(response.body.prefix(160))"
        case .summary(let summary):
            "summary refreshed=\(summary.refreshed) transient=\(summary.transient_failures) conflicts=\(summary.conflicts) skipped=\(summary.skipped) due=\(summary.due)"
        case .failed(let transient, let message): "invocation failed (transient: \(transient)): \(message)"
        }
    }
}

/// The handlers of the matrix, each over fresh users per cell so cells never see each
/// other's state.
enum FaultScenario: String, CaseIterable, Sendable {
    case storeFirst = "store-tokens first"
    case storeUpdate = "store-tokens update"
    case userProfile = "user-profile"
    case disconnect = "disconnect"
    case tokenRefresh = "token-refresh x3"
    /// Google's tokens-revoked through the receiver, for an account two users connected
    /// (watched first) while a third grant, of another account, looks on.
    case tokensRevoked = "security-events tokens-revoked x2"
    /// Google's account-purged likewise: both grants deleted as a disconnect deletes.
    case accountPurged = "security-events account-purged x2"
    /// Google's tokens-revoked issued an hour before Google last proved the grants (a
    /// delivery delayed past a reconnect, a redelivery after our 503s): it changes no grant,
    /// whatever fails, and is still recorded so its redeliveries stop.
    case lateTokensRevoked = "security-events tokens-revoked late x2"

    static let refreshGrants = 3

    /// Whether this is one of the receiver's cells, whose answer Google acts on: anything
    /// but 202 makes it deliver the same token again.
    var isSecurityEvent: Bool { self == .tokensRevoked || self == .accountPurged || self == .lateTokensRevoked }

    /// Whether the scenario calls Google (a first connection proves its refresh token,
    /// disconnect revokes, the refresh refreshes; the update sends none, and the receiver's
    /// key set is fetched straight from the fake Google, outside the matrix).
    var reachesGoogle: Bool { self == .storeFirst || self == .disconnect || self == .tokenRefresh }

    /// The receiver's positions: each step of acting on the account's grants, named by the
    /// call that makes it on `store` (the report lists the fault-free sequences they come
    /// from). The other scenarios take first / middle / last write; see ``Reference``.
    func steps(on store: FaultStore) -> [CallPosition]? {
        let step = { (label: String, operation: String, occurrence: Int) in
            CallPosition(label: label, trigger: .operation(operation, occurrence: occurrence))
        }
        switch (self, store) {
        case (.tokensRevoked, .secretsManager):
            return [
                step("subject lookup", "ListSecrets", 1), step("read", "GetSecretValue", 2), step("swap", "PutSecretValue", 1),
                step("tag write", "TagResource", 1), step("2nd grant's swap", "PutSecretValue", 2), step("ledger record", "PutItem", 1),
            ]
        case (.tokensRevoked, .dynamoDB):
            return [
                step("subject lookup", "Query", 1), step("read", "GetItem", 2), step("KMS", "Decrypt", 1), step("swap", "UpdateItem", 1),
                step("2nd grant's swap", "UpdateItem", 2), step("ledger record", "PutItem", 1),
            ]
        case (.accountPurged, .secretsManager):
            return [
                step("mark", "PutSecretValue", 1), step("tag write", "TagResource", 1), step("delete", "DeleteSecret", 1),
                step("2nd grant's delete", "DeleteSecret", 2), step("ledger record", "PutItem", 1),
            ]
        case (.lateTokensRevoked, .secretsManager):
            return [step("subject lookup", "ListSecrets", 1), step("read", "GetSecretValue", 2), step("ledger record", "PutItem", 1)]
        case (.lateTokensRevoked, .dynamoDB):
            return [step("subject lookup", "Query", 1), step("read", "GetItem", 2), step("KMS", "Decrypt", 1), step("ledger record", "PutItem", 1)]
        case (.accountPurged, .dynamoDB):
            return [
                step("KMS", "Decrypt", 1), step("mark", "UpdateItem", 1), step("delete", "UpdateItem", 2), step("2nd grant's delete", "UpdateItem", 4),
                step("ledger record", "PutItem", 1),
            ]
        default:
            return nil
        }
    }
    static let email = "fault.matrix@gmail.com"

    /// One prepared cell: what to watch, the checker's view of the cell's grants, and the
    /// request to send (again, for a rerun).
    struct Prepared: Sendable {
        var watched: [Watched]
        /// The cell's grants straight on moto, for snapshots.
        var grants: any GrantStore
        var invoke: @Sendable () async -> HandlerResult
        /// For a connect that Google must verify: what it must do when Google cannot be asked.
        var googleDown: GoogleDown?
        /// A refresh run over every grant of the cell, straight on moto: the run that must
        /// rewrite tags a refused tag write left stamped for another version.
        var refreshRun: @Sendable () async -> HandlerResult = { .failed(transient: false, "no refresh run") }
    }

    /// A connect with a refresh token while Google is down: 201 and the set stored exactly as
    /// the app sent it, unverified (the first watched grant); everything else watched
    /// unchanged. The next refresh run must verify it.
    struct GoogleDown: Sendable {
        /// The 201 body: the app's email and scope, since Google said nothing.
        var answer: String
        /// The token set as the app sent it, marked unverified, with its tags.
        var state: StoreSnapshot
        /// The app's `email`, which the set keeps after verification: Google's answer names
        /// no account without an `openid` scope.
        var email: String
        /// A refresh run over this cell's grant only.
        var refreshRun: @Sendable () async -> HandlerResult
    }

    /// Blanks what legitimately differs between runs: the fake Google numbers the access
    /// tokens it issues over the whole matrix, so a rerun or a retry gets another number;
    /// each receiver cell's grants name a Google account of their own.
    /// The clocks are fixed, so timestamps never differ.
    func normalizeValue(_ object: [String: Any]) -> [String: Any] {
        var object = object
        if isSecurityEvent, object["google_sub"] != nil { object["google_sub"] = "*" }
        guard let token = object["access_token"] as? String, token.hasPrefix("ya29.fake-") else { return object }
        object["access_token"] = "ya29.fake-*"
        return object
    }

    /// What a reader sees of `snapshot`, blanked as ``normalizeValue(_:)`` blanks the value,
    /// the account's listing tag too.
    func normalized(_ snapshot: StoreSnapshot) -> String {
        var snapshot = snapshot
        if isSecurityEvent, snapshot.tags[TokenSetTags.googleSubject] != nil { snapshot.tags[TokenSetTags.googleSubject] = "*" }
        return snapshot.normalized(normalizeValue)
    }

    /// Seeds the state a cell starts from (directly on moto, not through the proxy) and
    /// builds the handler over the proxied clients.
    func prepare(_ bench: FaultBench, cell: String) async throws -> Prepared {
        let grants = try await bench.grants(cell: cell)
        var prepared = try await prepare(bench, cell: cell, grants: grants)
        let sweep = refreshHandler(bench, grants: grants.direct, userPrefix: "\(cell)-")
        prepared.refreshRun = { await Self.run(sweep, bench) }
        return prepared
    }

    private func prepare(_ bench: FaultBench, cell: String, grants: FaultBench.Grants) async throws -> Prepared {
        let user = UserID("\(cell)-u")!
        let direct = bench.vault(grants.direct)
        let proxied = bench.vault(grants.proxied)
        let scope = GmailScopes.readonly
        switch self {
        case .storeFirst:
            bench.google.addGrant(refreshToken: "1//fault-first")
            let request = try await post(bench, user, #"{"access_token":"ya29.fault-first","refresh_token":"1//fault-first","expires_in":3600,"scope":"\#(scope)","email":"\#(Self.email)"}"#)
            let handler = StoreTokensHandler(guardian: bench.guardian, quota: InMemoryRequestQuota(), vault: proxied, verifier: verifier(bench), metrics: DiscardedMetrics())
            let refresh = refreshHandler(bench, grants: grants.proxied, userPrefix: user.rawValue)
            let googleDown = GoogleDown(
                answer: #"{"data":{"account_switch":false,"google_email":"\#(Self.email)","message":"First Gmail connection","scope":"\#(scope)"},"message":"Gmail OAuth tokens stored successfully!"}"#,
                state: try Self.unverifiedSet(accessToken: "ya29.fault-first", refreshToken: "1//fault-first", expiresIn: 3600, scope: scope, now: bench.now),
                email: Self.email, refreshRun: { await Self.run(refresh, bench) }
            )
            // The client ID secret is watched too: a connect only ever reads it.
            return Prepared(watched: [.grant(user), .secret(FaultBench.clientIDSecret)], grants: grants.direct, invoke: {
                .response(await handler.handle(request, logger: bench.logger))
            }, googleDown: googleDown)
        case .storeUpdate:
            _ = try await direct.store(IncomingTokens(accessToken: "ya29.fault-old", refreshToken: "1//fault-old", scopes: [scope], email: Self.email), for: user)
            let request = try await post(bench, user, #"{"access_token":"ya29.fault-new","expires_in":3600,"scope":"\#(scope)","email":"\#(Self.email)"}"#)
            let handler = StoreTokensHandler(guardian: bench.guardian, quota: InMemoryRequestQuota(), vault: proxied, verifier: verifier(bench), metrics: DiscardedMetrics())
            return Prepared(watched: [.grant(user)], grants: grants.direct) { .response(await handler.handle(request, logger: bench.logger)) }
        case .userProfile:
            try await bench.directUsers.putUser(UserRecord(userID: user.rawValue, name: "Fault Matrix", email: Self.email, createdOn: "2026-01-01T00:00:00Z"))
            _ = try await direct.store(IncomingTokens(accessToken: "ya29.fault-profile", refreshToken: "1//fault-profile", scopes: [scope], email: Self.email), for: user)
            let request = APIRequest(method: "GET", path: "/v1/user/me", headers: APIHeaders(try await bench.authorization(for: user)))
            let handler = UserProfileHandler(guardian: bench.guardian, users: bench.proxiedUsers, grants: proxied.grants)
            return Prepared(watched: [.grant(user)], grants: grants.direct) { .response(await handler.handle(request, logger: bench.logger)) }
        case .disconnect:
            bench.google.addGrant(refreshToken: "1//fault-disconnect")
            _ = try await direct.store(
                IncomingTokens(accessToken: "ya29.fault-disconnect", refreshToken: "1//fault-disconnect", scopes: [scope], email: Self.email), for: user
            )
            let request = APIRequest(method: "DELETE", path: "/v1/auth/gmail-tokens", headers: APIHeaders(try await bench.authorization(for: user)))
            let handler = DisconnectHandler(guardian: bench.guardian, vault: proxied, google: bench.proxiedGoogle, recoveryWindowDays: 7)
            return Prepared(watched: [.grant(user)], grants: grants.direct) { .response(await handler.handle(request, logger: bench.logger)) }
        case .tokenRefresh:
            var watched: [Watched] = []
            for index in 0..<Self.refreshGrants {
                let grantee = UserID("\(cell)-r\(index)")!
                bench.google.addGrant(refreshToken: "1//fault-refresh-\(index)")
                _ = try await direct.store(
                    IncomingTokens(accessToken: "ya29.fault-stale", refreshToken: "1//fault-refresh-\(index)", expiresIn: 60, scopes: [scope], email: Self.email),
                    for: grantee
                )
                watched.append(.grant(grantee))
            }
            let handler = refreshHandler(bench, grants: grants.proxied, userPrefix: "\(cell)-r")
            return Prepared(watched: watched, grants: grants.direct) { await Self.run(handler, bench) }
        case .tokensRevoked, .accountPurged, .lateTokensRevoked:
            let event = try bench.signer.next(
                self == .accountPurged ? SecurityEventSigner.accountPurged : SecurityEventSigner.tokensRevoked, late: self == .lateTokensRevoked
            )
            var watched: [Watched] = []
            for (index, subject) in [event.subject, event.subject, SecurityEventSigner.bystander].enumerated() {
                let grantee = UserID("\(cell)-s\(index)")!
                _ = try await direct.store(
                    IncomingTokens(
                        accessToken: "ya29.fault-event-\(index)", refreshToken: "1//fault-event-\(index)", scopes: [scope], email: Self.email,
                        subject: subject, clientID: bench.google.clientID
                    ),
                    for: grantee
                )
                watched.append(.grant(grantee))
            }
            let request = APIRequest(
                method: "POST", path: "/v1/google/security-events", headers: APIHeaders(["content-type": "application/secevent+jwt"]),
                body: Array(event.token.utf8)
            )
            let handler = securityEventsHandler(bench, vault: proxied)
            return Prepared(watched: watched, grants: grants.direct) { .response(await handler.handle(request, logger: bench.logger)) }
        }
    }

    /// Wired as the composition root wires it: our client IDs read through the proxied
    /// store, the ledger on the proxied DynamoDB; Google's RISC keys fetched straight from
    /// the fake Google (their outage is the handler tests' case), afresh for each cell.
    private func securityEventsHandler(_ bench: FaultBench, vault: TokenVault) -> SecurityEventsHandler {
        let clients = CachedGoogleClients(secrets: bench.proxiedSecrets, secretID: FaultBench.clientIDSecret)
        let keys = HTTPIssuerKeySource(location: .riscConfiguration(bench.google.riscConfigurationURL), transport: CurlHTTPClient(), logger: bench.logger)
        let now = bench.now
        return SecurityEventsHandler(
            verifier: SecurityEventVerifier(keys: keys, clientIDs: { try await clients.value().ids }),
            events: GoogleAccountEvents(vault: vault, recoveryWindowDays: 7, now: { now }), ledger: bench.proxiedLedger,
            metrics: DiscardedMetrics(), now: { now }
        )
    }

    /// One run of the refresh job.
    private static func run(_ handler: TokenRefreshHandler, _ bench: FaultBench) async -> HandlerResult {
        do {
            let json = try await handler.handle(detail: Array("{}".utf8), deadline: nil, logger: bench.logger)
            return .summary(try JSONDecoder().decode(RefreshSummary.self, from: Data(json)))
        } catch let error as StoreError {
            return .failed(transient: error == .unavailable, "\(error)")
        } catch {
            return .failed(transient: false, "\(error)")
        }
    }

    /// The set a first connect stores unverified, spelled out from the storage contract
    /// (not built by the code under test): the app's tokens, scope and email, expiry from
    /// its `expires_in`, `verified: false` without `verified_at`, and its listing tags.
    private static func unverifiedSet(accessToken: String, refreshToken: String, expiresIn: Int, scope: String, now: Date) throws -> StoreSnapshot {
        let expires = now.addingTimeInterval(Double(expiresIn))
        let date = { (date: Date) in ISO8601DateFormatter().string(from: date) }
        let value: [String: Any] = [
            "version": 2, "access_token": accessToken, "refresh_token": refreshToken, "token_type": "Bearer", "expires_at": date(expires),
            "scope": scope, "google_email": email, "verified": false, "connected_at": date(now), "updated_at": date(now), "status": "active",
        ]
        let tags = [
            "paypulse:status": "active", "paypulse:expires-at": String(Int64(expires.timeIntervalSince1970)),
            "paypulse:refreshable": "true", "paypulse:verified": "false", "paypulse:lifetime": String(expiresIn),
        ]
        let json = String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]), as: UTF8.self)
        return StoreSnapshot(exists: true, deletedDate: nil, tags: tags, versions: .unknown, currentValue: json)
    }

    private func post(_ bench: FaultBench, _ user: UserID, _ json: String) async throws -> APIRequest {
        var headers = try await bench.authorization(for: user)
        headers["content-type"] = "application/json"
        return APIRequest(method: "POST", path: "/v1/auth/gmail-tokens", headers: APIHeaders(headers), body: Array(json.utf8))
    }

    /// Wired as the composition root wires it: the client ID read through the proxied store.
    private func verifier(_ bench: FaultBench) -> GrantVerifier {
        let clients = CachedGoogleClients(secrets: bench.proxiedSecrets, secretID: FaultBench.clientIDSecret)
        let now = bench.now
        return GrantVerifier(
            google: bench.proxiedGoogle, clients: { try await clients.value() }, health: OAuthClientHealth(google: bench.proxiedGoogle), now: { now }
        )
    }

    /// Wired as the composition root wires it: the client ID read once per run, then the job
    /// over the grants whose user id starts with `userPrefix`.
    private func refreshHandler(_ bench: FaultBench, grants: any GrantStore, userPrefix: String) -> TokenRefreshHandler {
        let secrets = bench.proxiedSecrets, google = bench.proxiedGoogle, now = bench.now
        let vault = bench.vault(grants)
        let settings = RefreshSettings(windowSeconds: 900, concurrency: 2, maxWritesPerSecond: 1000, stopMarginSeconds: 1)
        return TokenRefreshHandler(functionName: "token-refresh", metrics: DiscardedMetrics()) {
            let clients = try await GoogleClients.load(from: secrets, secretID: FaultBench.clientIDSecret)
            let refresher = TokenRefresher(
                vault: vault, google: google, clients: clients, windowSeconds: settings.windowSeconds,
                limiter: WriteRateLimiter(writesPerSecond: settings.maxWritesPerSecond), now: { now }
            )
            return RefreshJob(grants: grants, refresher: refresher, settings: settings, userPrefix: userPrefix, now: { now })
        }
    }
}
