import Foundation
import PayPulseDomain
import PayPulseHandlers
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// Every case of ``AttackCatalog`` sent to the three JWT routes (store-tokens,
/// user-profile, disconnect) through the real handlers: each is answered 401 with the one
/// generic body, and no port is called at all — no secret read, describe or listing, no
/// user lookup, no Google call. The controls show that an accepted token does reach the
/// ports, so an empty call log means something.
@Suite("Token attacks through the handlers")
struct HandlerAttackTests {
    /// The three routes with recording ports around in-memory stores that hold user-1
    /// and a connected token set.
    private struct Routes {
        let log = StoreCallLog()
        let logs = LogCapture()
        let storeTokens: StoreTokensHandler
        let userProfile: UserProfileHandler
        let disconnect: DisconnectHandler

        init(authenticator: Authenticator? = nil) async throws {
            let secrets = CallRecordingSecretStore(InMemorySecretStore(), log: log)
            let users = CallRecordingUserDirectory(
                InMemoryUserDirectory([UserRecord(userID: "user-1", name: "Ada", email: "ada@example.com", createdOn: "2024-11-01T10:00:00Z")]),
                log: log
            )
            let vault = TokenVault(secrets: secrets, now: { AuthFixture.now })
            _ = try await vault.store(IncomingTokens(accessToken: "ya29.seeded", refreshToken: "1//seeded"), for: UserID("user-1")!)
            log.reset()
            let chosen = if let authenticator { authenticator } else { try await AuthFixture.authenticator() }
            let guardian = RequestGuard(authenticator: chosen, now: { AuthFixture.now })
            // Google is recorded too: an attack must not reach it either.
            let google = CallRecordingGoogleOAuth(log: log)
            let verifier = GrantVerifier(google: google, clients: { GoogleClients(ids: ["attack-test-client"]) }, health: OAuthClientHealth(google: google))
            storeTokens = StoreTokensHandler(guardian: guardian, quota: InMemoryRequestQuota(), vault: vault, verifier: verifier, metrics: DiscardedMetrics())
            userProfile = UserProfileHandler(guardian: guardian, users: users, grants: vault.grants)
            disconnect = DisconnectHandler(guardian: guardian, vault: vault, google: google, recoveryWindowDays: 7)
        }

        /// Sends `header` to each route; returns (route, response) pairs.
        func send(_ header: String?) async -> [(String, APIResponse)] {
            var headers = APIHeaders(["content-type": "application/json"])
            headers["authorization"] = header
            let body = Array(#"{"access_token":"ya29.attack","refresh_token":"1//attack","scope":["https://www.googleapis.com/auth/gmail.readonly"]}"#.utf8)
            return [
                ("store-tokens", await storeTokens.handle(
                    APIRequest(method: "POST", path: "/v1/auth/gmail-tokens", headers: headers, body: body), logger: logs.logger
                )),
                ("user-profile", await userProfile.handle(APIRequest(method: "GET", path: "/v1/user/me", headers: headers), logger: logs.logger)),
                ("disconnect", await disconnect.handle(
                    APIRequest(method: "DELETE", path: "/v1/auth/gmail-tokens", headers: headers), logger: logs.logger
                )),
            ]
        }
    }

    @Test("every attack is answered 401 on every route, with no call to any port")
    func attacksTouchNothing() async throws {
        let cases = try await AttackCatalog.all()
        var answered = 0
        for attack in cases {
            let routes = try await Routes()
            for (route, response) in await routes.send(attack.header) {
                answered += 1
                #expect(response.status == 401, "\(route) answered \(response.status) to \(attack)")
                #expect(response.body == #"{"error":"unauthorized","message":"\#(AuthenticationError.publicMessage)"}"#, "\(route), \(attack)")
                #expect(response.headers["www-authenticate"] == AuthenticationError.challenge, "\(route), \(attack)")
            }
            #expect(routes.log.calls.isEmpty, "\(attack) reached the ports: \(routes.log.calls)")
            if let header = attack.header {
                let pieces = header.split(whereSeparator: { " .".contains($0) }).map(String.init).filter { $0.count >= 12 }
                #expect(routes.logs.lines(containingAnyOf: pieces).isEmpty, "\(attack): a log line carries part of the token")
            }
        }
        #expect(cases.count == 67, "docs/testing.md and RELIABILITY count 67 attack tokens")
        print("HandlerAttackTests: \(cases.count) attack cases x 3 routes = \(answered) requests, all 401, 0 port calls")
    }

    @Test("controls: tokens at the edge of the leeway are accepted and do reach the ports")
    func controlsReachThePorts() async throws {
        for control in try await AttackCatalog.accepted() {
            let routes = try await Routes()
            let statuses = await routes.send(control.header).map { "\($0.0) \($0.1.status)" }
            #expect(statuses == ["store-tokens 201", "user-profile 200", "disconnect 200"], "\(control)")
            let calls = routes.log.calls
            #expect(calls.contains { $0.hasPrefix("SecretStore.") }, "\(control)")
            #expect(calls.contains("UserDirectory.user(user-1)"), "\(control)")
            #expect(calls.contains("GoogleOAuth.revoke"), "\(control)")
        }
    }

    @Test("under jwks, every attack is 401 on every route (503 with no usable key set), an unreachable issuer 503, with no call to any port")
    func issuerKeyAttacksTouchNothing() async throws {
        let attacks = try await IssuerKeyAttacks.all()
        for attack in attacks {
            let source = ScriptedKeySource(document: try attack.keySet ?? TestIssuer.standardKeySet())
            let routes = try await Routes(authenticator: Authenticator(settings: try TestIssuer.settings(), issuerKeys: source))
            for (route, response) in await routes.send("Bearer \(attack.token)") {
                #expect(response.status == attack.status, "\(route) answered \(response.status) to \(attack.name)")
                if attack.status == 401 {
                    #expect(response.headers["www-authenticate"] == AuthenticationError.challenge, "\(route), \(attack.name)")
                }
            }
            #expect(routes.log.calls.isEmpty, "\(attack.name) reached the ports: \(routes.log.calls)")
            #expect(await source.fetches <= 1, "\(attack.name): three requests, at most one fetch")
        }
        #expect(attacks.count == IssuerKeyAttacks.count)

        let down = ScriptedKeySource(document: "")
        await down.setUnreachable(true)
        let routes = try await Routes(authenticator: Authenticator(settings: try TestIssuer.settings(), issuerKeys: down))
        for (route, response) in await routes.send("Bearer \(try TestIssuer.rs256())") {
            #expect(response.status == 503, "\(route)")
            #expect(response.body.contains(#""error":"upstream_unavailable""#), "\(route)")
            #expect(response.headers["retry-after"] != nil, "\(route)")
        }
        #expect(routes.log.calls.isEmpty, "an unchecked token reached the ports: \(routes.log.calls)")

        // Control: the same routes accept a good token and reach the ports.
        let good = try await Routes(authenticator: Authenticator(settings: try TestIssuer.settings(), issuerKeys: ScriptedKeySource(document: try TestIssuer.standardKeySet())))
        let statuses = await good.send("Bearer \(try TestIssuer.es256())").map { "\($0.0) \($0.1.status)" }
        #expect(statuses == ["store-tokens 201", "user-profile 200", "disconnect 200"])
        #expect(good.log.calls.contains("UserDirectory.user(user-1)"))
    }
}
