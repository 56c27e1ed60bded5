import Foundation
import PayPulseDomain
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// Google's answer about one grant concerns that grant only: a foreign grant or a dead one
/// among many due ones never stops the others; only a failure of our own client stops a run.
@Suite("Refresh refusals are read per grant, on every store")
struct RefreshPerGrantTests {
    private struct Bench {
        let stores: StoreFactory.Stores
        let google = InMemoryGoogleOAuth()
        let run = "g\(UUID().uuidString.prefix(8).lowercased())"
        let logs = LogCapture()

        var vault: TokenVault { TokenVault(secrets: stores.secrets) }
        func user(_ index: Int) -> UserID { UserID("\(run)-\(index)")! }

        /// Stores a set for user `index` expiring in a minute unless told, as a verified connect left it.
        func seed(_ index: Int, refreshToken: String, expiresIn: Int = 60) async throws {
            _ = try await vault.store(
                IncomingTokens(
                    accessToken: "ya29.seed-\(index)", refreshToken: refreshToken, expiresIn: expiresIn, scopes: [GmailScopes.readonly],
                    email: "u\(index)@gmail.com"
                ),
                for: user(index)
            )
        }

        func job(health: OAuthClientHealth? = nil, concurrency: Int = 4) -> RefreshJob {
            let refresher = TokenRefresher(vault: vault, google: google, clients: GoogleClients(ids: [google.clientID]), windowSeconds: 900, health: health)
            return RefreshJob(
                secrets: stores.secrets, refresher: refresher,
                settings: RefreshSettings(windowSeconds: 900, concurrency: concurrency, maxWritesPerSecond: 1000, stopMarginSeconds: 1),
                listPrefix: "gmail/user/\(run)-"
            )
        }

        func current(_ index: Int) async throws -> GmailTokenSet { try #require(try await vault.current(of: user(index))).tokenSet }

        /// Refreshes user `index` whether due or not (the console's refresh button).
        func forceRefresh(_ index: Int) async throws {
            let refresher = TokenRefresher(vault: vault, google: google, clients: GoogleClients(ids: [google.clientID]), windowSeconds: 900)
            _ = try await refresher.refreshIfDue(user(index), force: true, logger: logs.logger)
        }
    }

    @Test("one foreign and one revoked grant among twelve due: the ten others refreshed, the two counted and marked", arguments: StoreFactory.all)
    func oneForeignOneRevoked(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let bench = Bench(stores: stores)
            for index in 0..<12 {
                let token = "1//\(bench.run)-\(index)"
                switch index {
                case 0: bench.google.set(token, .foreign)  // the most overdue is the foreign one
                case 1: break  // unknown to Google: invalid_grant
                default: bench.google.addGrant(token, subject: "sub-\(index)", email: "u\(index)@gmail.com")
                }
                try await bench.seed(index, refreshToken: token)
            }
            let summary = try await bench.job().run(deadline: nil, logger: bench.logs.logger)
            #expect(summary.due == 12 && summary.refreshed == 10 && summary.rejected == 1 && summary.revoked == 1)
            #expect(summary.transient_failures == 0 && summary.remaining == 0)
            let rejected = try await bench.current(0)
            #expect(rejected.status == .rejected && rejected.refreshToken == "1//\(bench.run)-0")
            #expect(try await bench.current(1).status == .revoked)
            #expect(try await bench.vault.connectionState(of: bench.user(0)) == .rejected)
            #expect(!(try await bench.vault.connectionState(of: bench.user(0))).isConnected)
            for index in 2..<12 {
                let set = try await bench.current(index)
                #expect(set.accessToken.hasPrefix("ya29.google-") && set.googleSubject == "sub-\(index)" && set.verified)
            }
            // One probe told the foreign grant from a broken client.
            #expect(bench.google.refreshes.filter { $0 == OAuthClientHealth.probeRefreshToken }.count == 1)

            // The next run skips both unread, and leaves the others (not due) alone.
            let calls = bench.google.refreshes.count
            let next = try await bench.job().run(deadline: nil, logger: bench.logs.logger)
            #expect(next.scanned == 12 && next.due == 0 && next.skipped == 2 && bench.google.refreshes.count == calls)

            // Even forced (the console's refresh button), neither dead grant goes to Google.
            for index in 0..<2 { try await bench.forceRefresh(index) }
            #expect(bench.google.refreshes.count == calls)
        }
    }

    @Test("a deleted OAuth client stops the run and fails it; no grant is marked", arguments: StoreFactory.all)
    func deletedClient(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let bench = Bench(stores: stores)
            for index in 0..<4 {
                bench.google.addGrant("1//\(bench.run)-\(index)", subject: "sub-\(index)", email: nil)
                try await bench.seed(index, refreshToken: "1//\(bench.run)-\(index)")
            }
            bench.google.deleteClient()
            await #expect(throws: TokenRefresher.ConfigurationFailure.self) {
                try await bench.job().run(deadline: nil, logger: bench.logs.logger)
            }
            for index in 0..<4 { #expect(try await bench.current(index).status == .active) }
            #expect(bench.logs.lines.contains { $0.contains("critical") && $0.contains("deleted_client") })
        }
    }

    @Test("a client refusal for every grant with a broken client ID stops the run after one probe")
    func brokenClientID() async throws {
        try await StoreFactory.inMemory.withStores { stores in
            let bench = Bench(stores: stores)
            try await bench.seed(0, refreshToken: "1//\(bench.run)-0")
            let refresher = TokenRefresher(vault: bench.vault, google: bench.google, clients: GoogleClients(ids: ["not-our-client"]), windowSeconds: 900)
            let job = RefreshJob(
                secrets: stores.secrets, refresher: refresher, settings: RefreshSettings(windowSeconds: 900, concurrency: 1, maxWritesPerSecond: 1000, stopMarginSeconds: 1),
                listPrefix: "gmail/user/\(bench.run)-"
            )
            await #expect(throws: TokenRefresher.ConfigurationFailure.self) { try await job.run(deadline: nil, logger: bench.logs.logger) }
            #expect(try await bench.current(0).status == .active)
        }
    }

    @Test("three foreign grants in one run: one probe tells them from a broken client, all three rejected")
    func oneProbePerRun() async throws {
        try await StoreFactory.inMemory.withStores { stores in
            let bench = Bench(stores: stores)
            for index in 0..<3 {
                bench.google.set("1//\(bench.run)-\(index)", .foreign)
                try await bench.seed(index, refreshToken: "1//\(bench.run)-\(index)")
            }
            // One at a time, so it is the healthy verdict's reuse that saves the later probes,
            // not two probes running at once being shared.
            let summary = try await bench.job(concurrency: 1).run(deadline: nil, logger: bench.logs.logger)
            #expect(summary.rejected == 3)
            #expect(bench.google.refreshes.filter { $0 == OAuthClientHealth.probeRefreshToken }.count == 1)
        }
    }

    @Test("a client refusal the probe cannot explain changes nothing and counts as transient")
    func probeUnknown() async throws {
        try await StoreFactory.inMemory.withStores { stores in
            let bench = Bench(stores: stores)
            bench.google.set("1//\(bench.run)-0", .foreign)
            bench.google.failProbes()
            try await bench.seed(0, refreshToken: "1//\(bench.run)-0")
            let summary = try await bench.job().run(deadline: nil, logger: bench.logs.logger)
            #expect(summary.transient_failures == 1 && summary.rejected == 0)
            #expect(try await bench.current(0).status == .active)
        }
    }

    @Test("an unverified set is taken first whatever its expiry, and verified with Google's identity", arguments: StoreFactory.all)
    func unverifiedVerified(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let bench = Bench(stores: stores)
            _ = try await bench.vault.store(
                IncomingTokens(accessToken: "ya29.app", refreshToken: "1//\(bench.run)-p", expiresIn: 7200, scopes: [GmailScopes.readonly], email: "claimed@gmail.com", verified: false),
                for: bench.user(0)
            )
            bench.google.addGrant("1//\(bench.run)-p", subject: "sub-real", email: "real@gmail.com")
            let summary = try await bench.job().run(deadline: nil, logger: bench.logs.logger)
            #expect(summary.due == 1 && summary.refreshed == 1)
            let set = try await bench.current(0)
            #expect(set.verified && set.googleSubject == "sub-real" && set.googleEmail == "real@gmail.com" && set.verifiedAt != nil)
            let tags = try await stores.secrets.describeSecret(name: bench.user(0).secretName).tags
            #expect(tags[TokenSetTags.verified] == "true")
        }
    }

    @Test("a refresh whose id_token names a renamed address keeps the stored identity current; one naming another client changes nothing", arguments: StoreFactory.all)
    func identityKeptCurrent(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let bench = Bench(stores: stores)
            let token = "1//\(bench.run)-renamed"
            bench.google.addGrant(token, subject: "sub-jane", email: "jane.old@gmail.com")
            try await bench.seed(0, refreshToken: token)
            _ = try await bench.job().run(deadline: nil, logger: bench.logs.logger)
            #expect(try await bench.current(0).googleEmail == "jane.old@gmail.com")
            // The user renames the address at Google; the next refresh records it.
            bench.google.addGrant(token, subject: "sub-jane", email: "jane.new@gmail.com")
            try await bench.forceRefresh(0)
            let set = try await bench.current(0)
            #expect(set.googleEmail == "jane.new@gmail.com" && set.googleSubject == "sub-jane" && set.emailVerified == true)
            // An id_token for another audience is not Google's word about this grant.
            bench.google.set(token, .grant(subject: "sub-mallory", email: "sub-mallory@gmail.com", scope: InMemoryGoogleOAuth.signInScope, audience: "other-app.apps.googleusercontent.com"))
            try await bench.forceRefresh(0)
            let after = try await bench.current(0)
            #expect(after.googleSubject == "sub-jane" && after.googleEmail == "jane.new@gmail.com")
        }
    }

    @Test("the soonest expiry goes to Google first, so a deadline cuts the ones with the most time left")
    func soonestFirst() async throws {
        try await StoreFactory.inMemory.withStores { stores in
            let bench = Bench(stores: stores)
            for (index, seconds) in [(0, 600), (1, 60), (2, 300), (3, 120)] {
                bench.google.addGrant("1//\(bench.run)-\(index)", subject: "sub-\(index)", email: nil)
                try await bench.seed(index, refreshToken: "1//\(bench.run)-\(index)", expiresIn: seconds)
            }
            _ = try await bench.job(concurrency: 1).run(deadline: nil, logger: bench.logs.logger)
            #expect(bench.google.refreshes == [1, 3, 2, 0].map { "1//\(bench.run)-\($0)" })
        }
    }
}
