import Foundation
import Logging
import PayPulseDomain
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// Google's word is never lost or undone: an event whose receiver a lagging listing hid the
/// grant from, or that came while a write Google answered earlier was in flight, still ends
/// the grant; a purge deletes only the grant it judged; marks stay final; `token-revoked`
/// finds a grant stored before the digest key. On every grant store, with Google's word in
/// memory (its stores have a contract suite of their own) and the fake Google over HTTP.
@Suite("Google's word is never lost or undone")
struct GoogleWordTests {
    private struct Bench {
        let fixture: RefreshFixture
        let lagging: LaggingListingGrantStore
        let held: HeldWriteGrantStore
        let words = InMemoryGoogleAccountWords()

        init(_ stores: StoreFactory.Stores) throws {
            fixture = try RefreshFixture(stores)
            lagging = LaggingListingGrantStore(inner: fixture.grants)
            held = HeldWriteGrantStore(inner: lagging)
        }

        var vault: TokenVault {
            TokenVault(grants: held, digester: { RefreshFixture.digester }, googleWord: GoogleWordCheck(words: words, recoveryWindowDays: 7))
        }
        /// The receiver's actions, recording Google's word first.
        var events: GoogleAccountEvents { GoogleAccountEvents(vault: vault, recoveryWindowDays: 7, words: words) }

        static func subject() -> String { "10\(UInt64.random(in: 1_000_000_000_000_000...9_999_999_999_999_999))" }
        func user(_ index: Int) -> UserID { fixture.user(index) }

        /// What Google answers for `token` of `subject`, proved at `provedAt`.
        func incoming(_ token: String, _ subject: String, provedAt: Date) -> IncomingTokens {
            IncomingTokens(
                accessToken: "ya29.\(fixture.run)", refreshToken: token, expiresIn: 3600, scopes: [GmailScopes.readonly],
                email: "\(subject)@gmail.com", subject: subject, clientID: fixture.google.clientID, provedAt: provedAt
            )
        }

        /// Connects user `index` to `subject` with a token the fake Google knows; not due for an hour.
        @discardableResult
        func connect(_ index: Int, _ subject: String, provedAt: Date = Date()) async throws -> String {
            let token = "1//\(fixture.run)-\(index)-\(UUID().uuidString.prefix(6))"
            fixture.google.addGrant(refreshToken: token, scope: FakeGoogleGrantSpec.signInWithGmailScope, account: FakeGoogleAccount(subject: subject))
            _ = try await vault.store(incoming(token, subject, provedAt: provedAt), for: user(index))
            return token
        }

        func event(_ type: SecurityEventType, _ subject: String) -> SecurityEvent {
            SecurityEvent(type: type, subject: .googleAccount(GoogleAccountSubject(subject: subject, issuer: "https://accounts.google.com/")))
        }

        /// The receiver's work for one event: the word first, then the grants it can find.
        @discardableResult
        func deliver(_ type: SecurityEventType, _ subject: String, issuedAt: Date) async throws -> GoogleAccountEvents.Applied {
            try await events.remember(event(type, subject), issuedAt: issuedAt)
            return try await events.apply(event(type, subject), issuedAt: issuedAt, logger: fixture.logs.logger)
        }

        func state(_ index: Int) async throws -> ConnectionState { try await vault.connectionState(of: user(index)) }
        func set(_ index: Int) async throws -> GmailTokenSet? { try await vault.current(of: user(index))?.tokenSet }

        func refresher() -> TokenRefresher {
            TokenRefresher(vault: vault, google: fixture.client, clients: GoogleClients(ids: fixture.google.clientIDs), windowSeconds: 900)
        }

        func run() async throws -> RefreshSummary {
            let settings = RefreshSettings(windowSeconds: 900, concurrency: 4, maxWritesPerSecond: 1000, stopMarginSeconds: 1)
            let job = RefreshJob(
                grants: held, refresher: refresher(), settings: settings, userPrefix: "\(fixture.run)-",
                googleWord: GoogleAccountEvents(vault: vault, recoveryWindowDays: 7, words: words)
            )
            return try await job.run(deadline: nil, logger: fixture.logs.logger)
        }

        func freshToken(_ index: Int) async -> Result<GmailTokenSet, TokenRefresher.FreshTokenError> {
            do {
                return .success(try await refresher().freshTokenSet(for: user(index), logger: fixture.logs.logger))
            } catch let error as TokenRefresher.FreshTokenError {
                return .failure(error)
            } catch {
                Issue.record("fresh-token failed otherwise: \(error)")
                return .failure(.unavailable)
            }
        }
    }

    @Test("a listing that hides the grant from the receiver: fresh-token refuses the disabled account at once; one refresh run revokes the other", arguments: StoreFactory.allGrantStores)
    func laggingListing(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let bench = try Bench(stores)
            let hijacked = Bench.subject(), revoked = Bench.subject()
            try await bench.connect(0, hijacked, provedAt: Date().addingTimeInterval(-30))
            try await bench.connect(1, revoked, provedAt: Date().addingTimeInterval(-30))
            bench.lagging.hide(bench.user(0).rawValue)
            bench.lagging.hide(bench.user(1).rawValue)
            #expect(try await bench.deliver(.accountDisabled, hijacked, issuedAt: Date()).changed.isEmpty, "the listing hid the grant")
            #expect(try await bench.deliver(.tokensRevoked, revoked, issuedAt: Date()).changed.isEmpty)
            #expect(try await bench.state(0) == .connected)
            #expect(try await bench.state(1) == .connected)

            #expect(await bench.freshToken(0) == .failure(.disabled), "no token of a hijacked account")
            #expect(try await bench.state(0) == .disabled)

            bench.lagging.show(bench.user(1).rawValue)  // the listing caught up
            _ = try await bench.run()
            #expect(try await bench.state(1) == .revoked, "one refresh run applies the word recorded")
            #expect(try await bench.set(1)?.verified == true, "Google's word: never asked again")
            // Applying the word again changes nothing: the second run leaves both as they are.
            _ = try await bench.run()
            #expect(try await bench.state(0) == .disabled)
            #expect(try await bench.state(1) == .revoked)
        }
    }

    @Test("a first connect whose write lands after Google's newer account-disabled is refused and reads disabled", arguments: StoreFactory.allGrantStores)
    func heldFirstConnect(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let bench = try Bench(stores)
            let subject = Bench.subject(), proof = Date().addingTimeInterval(-5)
            let token = "1//\(bench.fixture.run)-held"
            bench.fixture.google.addGrant(refreshToken: token, scope: FakeGoogleGrantSpec.signInWithGmailScope, account: FakeGoogleAccount(subject: subject))
            bench.held.holdNextWrite(of: bench.user(0).rawValue)
            let vault = bench.vault, incoming = bench.incoming(token, subject, provedAt: proof), user = bench.user(0)
            let store = Task { try await vault.storeHonouringGoogle(incoming, for: user) }
            await bench.held.waitForHeldWrite(of: user.rawValue)
            #expect(try await bench.deliver(.accountDisabled, subject, issuedAt: proof.addingTimeInterval(1)).changed.isEmpty)
            bench.held.release(user.rawValue)
            await #expect(throws: GoogleWordOverruled(status: .disabled)) { try await store.value }
            #expect(try await bench.state(0) == .disabled)
            #expect(await bench.freshToken(0) == .failure(.disabled))
        }
    }

    @Test("a reconnect that loses its swap to Google's newer tokens-revoked is not merged back to active; proof time is Google's", arguments: StoreFactory.allGrantStores)
    func heldReconnect(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let bench = try Bench(stores)
            let subject = Bench.subject()
            try await bench.connect(0, subject, provedAt: Date().addingTimeInterval(-600))
            let proof = Date().addingTimeInterval(-5)
            let token = "1//\(bench.fixture.run)-again"
            bench.fixture.google.addGrant(refreshToken: token, scope: FakeGoogleGrantSpec.signInWithGmailScope, account: FakeGoogleAccount(subject: subject))
            bench.held.holdNextWrite(of: bench.user(0).rawValue)
            let vault = bench.vault, incoming = bench.incoming(token, subject, provedAt: proof), user = bench.user(0)
            let store = Task { try await vault.storeHonouringGoogle(incoming, for: user) }
            await bench.held.waitForHeldWrite(of: user.rawValue)
            // The receiver finds the stored (old) grant and revokes it; the held swap then loses.
            #expect(try await bench.deliver(.tokensRevoked, subject, issuedAt: proof.addingTimeInterval(1)).changed == [bench.user(0)])
            bench.held.release(user.rawValue)
            await #expect(throws: GoogleWordOverruled(status: .revoked)) { try await store.value }
            #expect(try await bench.state(0) == .revoked)

            // A reconnect Google proves after the event stands, dated by Google's answer.
            let later = Date()
            let fresh = "1//\(bench.fixture.run)-fresh"
            bench.fixture.google.addGrant(refreshToken: fresh, scope: FakeGoogleGrantSpec.signInWithGmailScope, account: FakeGoogleAccount(subject: subject))
            let slowVault = TokenVault(
                grants: bench.held, now: { later.addingTimeInterval(30) },
                googleWord: GoogleWordCheck(words: bench.words, recoveryWindowDays: 7)
            )
            let stored = try await slowVault.storeHonouringGoogle(bench.incoming(fresh, subject, provedAt: later.addingTimeInterval(120)), for: bench.user(0))
            #expect(stored.tokenSet.verifiedAt == later.addingTimeInterval(120), "verified_at is when Google answered, not the write's clock")
            #expect(try await bench.state(0) == .connected)
        }
    }

    @Test("a purge deletes only the grant it judged: a switch, or a reconnect proved after it, written meanwhile, stands", arguments: StoreFactory.allGrantStores)
    func purgeJudgesInItsSwap(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let bench = try Bench(stores)
            let purged = Bench.subject(), other = Bench.subject()
            try await bench.connect(0, purged, provedAt: Date().addingTimeInterval(-600))
            try await bench.connect(1, purged, provedAt: Date().addingTimeInterval(-600))
            let issued = Date().addingTimeInterval(-300)
            // User 0 switches to another account, user 1 reconnects with a grant Google proved
            // after the event; each lands just before the purge's mark.
            let vault = bench.vault
            let switchToken = "1//\(bench.fixture.run)-switch", reconnectToken = "1//\(bench.fixture.run)-reconnect"
            let switched = bench.incoming(switchToken, other, provedAt: Date())
            let reconnected = bench.incoming(reconnectToken, purged, provedAt: Date())
            let user0 = bench.user(0), user1 = bench.user(1)
            bench.held.holdNextWrite(of: user0.rawValue) { _ = try await vault.store(switched, for: user0) }
            bench.held.holdNextWrite(of: user1.rawValue) { _ = try await vault.store(reconnected, for: user1) }
            let purge = Task { try await bench.events.apply(bench.event(.accountPurged, purged), issuedAt: issued, logger: bench.fixture.logs.logger) }
            for user in [user0, user1] {
                await bench.held.waitForHeldWrite(of: user.rawValue)
                bench.held.release(user.rawValue)
            }
            let applied = try await purge.value
            #expect(applied.changed.isEmpty, "\(applied)")
            #expect(try await bench.set(0)?.googleSubject == other, "the switch stands")
            #expect(try await bench.state(0) == .connected)
            #expect(try await bench.set(1)?.refreshToken == reconnectToken, "the newer reconnect stands")
            #expect(try await bench.state(1) == .connected)
        }
    }

    @Test("a disconnect's mark is final: with the bus down it stays pending, verified, and no refresh run writes it active", arguments: StoreFactory.allGrantStores)
    func marksAreFinal(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let bench = try Bench(stores)
            let publisher = LifecyclePublisher(bus: DownBus(), metrics: DiscardedMetrics(), logger: bench.fixture.logs.logger)
            let vault = TokenVault(grants: bench.fixture.grants, digester: { RefreshFixture.digester }, events: publisher)
            let token = "1//\(bench.fixture.run)-unverified"
            bench.fixture.google.addGrant(refreshToken: token)
            // Stored unverified (Google unreachable at connect), then disconnected while the bus is down.
            var incoming = IncomingTokens(accessToken: "ya29.u", refreshToken: token, scopes: [GmailScopes.readonly], email: "u@gmail.com")
            incoming.verified = false
            _ = try await vault.store(incoming, for: bench.user(0))
            try await vault.disconnect(bench.user(0), recoveryWindowDays: 7)
            let marked = try #require(try await vault.current(of: bench.user(0))?.tokenSet)
            #expect(marked.status == .revoked && marked.verified && !marked.isRefreshable)
            let refresher = TokenRefresher(vault: vault, google: bench.fixture.client, clients: GoogleClients(ids: bench.fixture.google.clientIDs), windowSeconds: 900)
            _ = try await RefreshJob(
                grants: bench.fixture.grants, refresher: refresher,
                settings: RefreshSettings(windowSeconds: 900, concurrency: 1, maxWritesPerSecond: 1000, stopMarginSeconds: 1), userPrefix: "\(bench.fixture.run)-"
            ).run(deadline: nil, logger: bench.fixture.logs.logger)
            #expect(try await vault.current(of: bench.user(0))?.tokenSet.status == .revoked)
            #expect(bench.fixture.google.refreshCount(for: token) == 0, "the refresh run never asked Google about a disconnected grant")
        }
    }

    @Test("token-revoked finds a grant stored before the digest key existed, once a refresh run stamped it", arguments: StoreFactory.allGrantStores)
    func digestsStampedLater(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let bench = try Bench(stores)
            let token = "1//\(bench.fixture.run)-before-key"
            bench.fixture.google.addGrant(refreshToken: token)
            _ = try await TokenVault(grants: bench.fixture.grants).store(
                // A store with a due index lists it once due: its refresh stamps it too.
                IncomingTokens(accessToken: "ya29.k", refreshToken: token, expiresIn: bench.fixture.listsOnlyDue ? 60 : 3600, scopes: [GmailScopes.readonly], clientID: bench.fixture.google.clientID),
                for: bench.user(0)
            )
            #expect(try await bench.fixture.current(0).refreshTokenDigests == nil)
            _ = try await bench.fixture.job().run(deadline: nil, logger: bench.fixture.logs.logger)
            #expect(try await bench.fixture.current(0).refreshTokenDigests != nil, "the run stamped the grant")
            let event = SecurityEvent(
                type: .tokenRevoked,
                subject: .oauthToken(OAuthTokenSubject(tokenType: "refresh_token", identifierAlgorithm: .prefix, identifier: String(token.prefix(16))))
            )
            let applied = try await GoogleAccountEvents(vault: bench.fixture.vault, recoveryWindowDays: 7)
                .apply(event, issuedAt: Date(), logger: bench.fixture.logs.logger)
            #expect(applied.changed == [bench.user(0)])
            #expect(try await bench.fixture.current(0).status == .revoked)
        }
    }

    @Test("an unproved store over a revoked grant does not keep the old account, so the old account's word cannot follow it")
    func unprovedStoreDropsTheSubject() {
        let now = Date()
        let revoked = GmailTokenSet(
            accessToken: "a", refreshToken: nil, expiresAt: now, scope: GmailScopes.readonly, googleEmail: "u@gmail.com", googleSubject: "1001",
            connectedAt: now, updatedAt: now, status: .revoked
        )
        var incoming = IncomingTokens(accessToken: "b", refreshToken: "1//new", scopes: [GmailScopes.readonly], email: "u@gmail.com")
        incoming.verified = false
        let (merged, _) = GmailTokenSet.merging(incoming, over: revoked, now: now)
        #expect(merged.googleSubject == nil && !merged.verified)
    }
}

/// A bus that is down: every put fails for now.
private struct DownBus: LifecycleEventBus {
    var maxEntriesPerPut: Int { 10 }
    func put(_ entries: [LifecycleBusEntry], within budget: Duration) async throws(LifecycleBusFailure) -> [LifecycleBusFailure?] {
        throw LifecycleBusFailure(code: "unreachable", refused: false)
    }
}
