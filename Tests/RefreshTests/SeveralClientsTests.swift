import Foundation
import PayPulseDomain
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// One backend, several OAuth clients of ours (the App Store build, a debug build): a grant
/// is proved with each in turn, keeps the one Google accepted, and every later refresh uses
/// that one alone. Against the fake Google over HTTP, which refuses a grant's refresh with
/// any client but its own (401 `unauthorized_client`), on every store.
@Suite("Several OAuth clients share one backend")
struct SeveralClientsTests {
    static let store = "store-build.apps.googleusercontent.com"
    static let debug = "debug-build.apps.googleusercontent.com"
    static let otherProject = "someone-elses.apps.googleusercontent.com"
    static let clients = GoogleClients(ids: [store, debug])

    private func verifier(_ fixture: RefreshFixture, clients: GoogleClients = clients) -> GrantVerifier {
        GrantVerifier(google: fixture.client, clients: { clients }, health: OAuthClientHealth(google: fixture.client))
    }

    private func refresher(_ fixture: RefreshFixture, clients: GoogleClients = clients) -> TokenRefresher {
        TokenRefresher(vault: fixture.vault, google: fixture.client, clients: clients, windowSeconds: 900)
    }

    /// The client each `/token` request carried, in order.
    private func clientsAsked(_ fixture: RefreshFixture, since start: Int = 0) -> [String] {
        fixture.google.requests.dropFirst(start).filter { $0.endpoint == .token }.map { $0.form["client_id"] ?? "" }
    }

    private func incoming(_ refreshToken: String, clientID: String? = nil) -> IncomingTokens {
        IncomingTokens(accessToken: "ya29.from-the-app", refreshToken: refreshToken, scopes: [GmailScopes.readonly], clientID: clientID)
    }

    @Test("a grant of the second client is verified, stored, refreshed and handed out with that client alone", arguments: StoreFactory.all)
    func secondClient(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let fixture = try RefreshFixture(stores, clientIDs: [Self.store, Self.debug])
            let token = "1//\(fixture.run)-debug"
            fixture.google.addGrant(refreshToken: token, scope: FakeGoogleGrantSpec.signInWithGmailScope, account: FakeGoogleAccount(issuedTo: Self.debug))

            // Without a hint: the default client is refused, its probe says it is healthy, the second accepts.
            let result = try await verifier(fixture).verify(incoming(token), logger: fixture.logs.logger)
            #expect(result.verified && result.tokens.clientID == Self.debug)
            #expect(clientsAsked(fixture) == [Self.store, Self.store, Self.debug])
            #expect(fixture.google.requests.filter { $0.endpoint == .token }[1].form["refresh_token"] == OAuthClientHealth.probeRefreshToken)

            _ = try await fixture.vault.store(result.tokens, for: fixture.user(0))
            let stored = try #require(try await fixture.vault.current(of: fixture.user(0))).tokenSet
            #expect(stored.googleClientID == Self.debug)
            #expect(try await fixture.grants.state(of: fixture.user(0).rawValue).attributes[TokenSetTags.client] == Self.debug)

            // Every later refresh asks with the grant's client only: no trial, no probe.
            let before = fixture.google.requests.count
            let outcome = try await refresher(fixture).refreshIfDue(fixture.user(0), force: true, logger: fixture.logs.logger)
            guard case .refreshed(let renewed) = outcome else { Issue.record("not refreshed: \(outcome)"); return }
            #expect(renewed.googleClientID == Self.debug)
            #expect(clientsAsked(fixture, since: before) == [Self.debug])

            // fresh-token's path (an expiring set) too.
            var expiring = renewed
            expiring.expiresAt = Date().addingTimeInterval(30)
            expiring.verifiedAt = Date().addingTimeInterval(-3600)
            let current = try #require(try await fixture.vault.current(of: fixture.user(0)))
            try await fixture.vault.replace(expiring, of: fixture.user(0), expected: current.version)
            let beforeFresh = fixture.google.requests.count
            let fresh = try await refresher(fixture).freshTokenSet(for: fixture.user(0), logger: fixture.logs.logger)
            #expect(fresh.accessToken != expiring.accessToken && fresh.googleClientID == Self.debug)
            #expect(clientsAsked(fixture, since: beforeFresh) == [Self.debug])
        }
    }

    @Test("the app's client_id is tried first when it is ours, and ignored when it is not")
    func hint() async throws {
        try await StoreFactory.embedded.withStores { stores in
            let fixture = try RefreshFixture(stores, clientIDs: [Self.store, Self.debug])
            let token = "1//\(fixture.run)-hinted"
            fixture.google.addGrant(refreshToken: token, scope: FakeGoogleGrantSpec.signInWithGmailScope, account: FakeGoogleAccount(issuedTo: Self.debug))
            let hinted = try await verifier(fixture).verify(incoming(token, clientID: Self.debug), logger: fixture.logs.logger)
            #expect(hinted.tokens.clientID == Self.debug && clientsAsked(fixture) == [Self.debug])

            let start = fixture.google.requests.count
            let stranger = try await verifier(fixture).verify(incoming(token, clientID: Self.otherProject), logger: fixture.logs.logger)
            #expect(stranger.tokens.clientID == Self.debug)
            #expect(!clientsAsked(fixture, since: start).contains(Self.otherProject))
        }
    }

    @Test("a grant of a client that is none of ours is foreign_client after every client was tried", arguments: StoreFactory.all)
    func foreign(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let fixture = try RefreshFixture(stores, clientIDs: [Self.store, Self.debug])
            let token = "1//\(fixture.run)-foreign"
            fixture.google.addGrant(refreshToken: token, account: FakeGoogleAccount(issuedTo: Self.otherProject))
            await #expect(throws: GrantVerifier.Refusal.foreignClient) {
                try await verifier(fixture).verify(incoming(token, clientID: Self.otherProject), logger: fixture.logs.logger)
            }
            // Each client refused once and probed once (healthy), and nothing more.
            #expect(clientsAsked(fixture).sorted() == [Self.debug, Self.debug, Self.store, Self.store])
            #expect(try await fixture.vault.current(of: fixture.user(0)) == nil)
        }
    }

    @Test("a broken client of ours does not hide a grant of a healthy one, and outranks 'foreign' when none accepts")
    func brokenClient() async throws {
        try await StoreFactory.embedded.withStores { stores in
            // The first listed client is unknown to Google (a typo in the secret): invalid_client.
            let fixture = try RefreshFixture(stores, clientIDs: [Self.store, Self.debug])
            let ghost = GoogleClients(ids: ["typo.apps.googleusercontent.com", Self.debug])
            let ours = "1//\(fixture.run)-ours", theirs = "1//\(fixture.run)-theirs"
            fixture.google.addGrant(refreshToken: ours, scope: FakeGoogleGrantSpec.signInWithGmailScope, account: FakeGoogleAccount(issuedTo: Self.debug))
            fixture.google.addGrant(refreshToken: theirs, account: FakeGoogleAccount(issuedTo: Self.otherProject))
            let verifier = verifier(fixture, clients: ghost)
            #expect(try await verifier.verify(incoming(ours), logger: fixture.logs.logger).tokens.clientID == Self.debug)
            do {
                _ = try await verifier.verify(incoming(theirs), logger: fixture.logs.logger)
                Issue.record("a grant no client accepted was verified")
            } catch let refusal as GrantVerifier.Refusal {
                guard case .clientBroken(let reason) = refusal else { Issue.record("not clientBroken: \(refusal)"); return }
                #expect(reason.contains("invalid_client"))
            }
        }
    }

    @Test("a set stored before clients were recorded refreshes with the default client and records it", arguments: StoreFactory.all)
    func legacySet(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let fixture = try RefreshFixture(stores, clientIDs: [Self.store, Self.debug])
            let token = "1//\(fixture.run)-legacy"
            fixture.google.addGrant(refreshToken: token)
            _ = try await fixture.vault.store(incoming(token), for: fixture.user(0))  // no client, as stored before
            #expect(try #require(try await fixture.vault.current(of: fixture.user(0))).tokenSet.googleClientID == nil)
            let outcome = try await refresher(fixture).refreshIfDue(fixture.user(0), force: true, logger: fixture.logs.logger)
            guard case .refreshed(let renewed) = outcome else { Issue.record("not refreshed: \(outcome)"); return }
            #expect(renewed.googleClientID == Self.store && clientsAsked(fixture) == [Self.store])
            #expect(fixture.google.refreshCount(for: token) == 1)
        }
    }

    @Test("an unverified set is proved with each client in turn, like a connect, and keeps the one Google accepted")
    func unverifiedSet() async throws {
        try await StoreFactory.embedded.withStores { stores in
            let fixture = try RefreshFixture(stores, clientIDs: [Self.store, Self.debug])
            let token = "1//\(fixture.run)-later"
            fixture.google.addGrant(refreshToken: token, account: FakeGoogleAccount(issuedTo: Self.debug))
            var unverified = incoming(token)
            unverified.verified = false
            _ = try await fixture.vault.store(unverified, for: fixture.user(0))
            let outcome = try await refresher(fixture).refreshIfDue(fixture.user(0), logger: fixture.logs.logger)
            guard case .refreshed(let renewed) = outcome else { Issue.record("not refreshed: \(outcome)"); return }
            #expect(renewed.verified && renewed.googleClientID == Self.debug)
            #expect(clientsAsked(fixture) == [Self.store, Self.store, Self.debug])
        }
    }

    @Test("a grant whose client was taken off the list is not refreshed and not marked: the run reports it")
    func unlistedClient() async throws {
        try await StoreFactory.embedded.withStores { stores in
            let fixture = try RefreshFixture(stores, clientIDs: [Self.store, Self.debug])
            let token = "1//\(fixture.run)-dropped"
            fixture.google.addGrant(refreshToken: token, scope: FakeGoogleGrantSpec.signInWithGmailScope, account: FakeGoogleAccount(issuedTo: Self.debug))
            let verified = try await verifier(fixture).verify(incoming(token, clientID: Self.debug), logger: fixture.logs.logger)
            _ = try await fixture.vault.store(verified.tokens, for: fixture.user(0))
            let before = try #require(try await fixture.vault.current(of: fixture.user(0)))
            let calls = fixture.google.tokenCalls
            let outcome = try await refresher(fixture, clients: GoogleClients(ids: [Self.store])).refreshIfDue(fixture.user(0), force: true, logger: fixture.logs.logger)
            guard case .transientFailure(let reason) = outcome else { Issue.record("not a transient failure: \(outcome)"); return }
            #expect(reason.contains("not in the client list") && !reason.contains(Self.debug))
            #expect(fixture.google.tokenCalls == calls)
            #expect(try await fixture.vault.current(of: fixture.user(0)) == before)
        }
    }
}
