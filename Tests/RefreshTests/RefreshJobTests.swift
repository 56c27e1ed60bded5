import Foundation
import PayPulseDomain
import PayPulseGoogle
import PayPulsePorts
import PayPulseTestSupport
import PayPulseTransport
import Testing

@Suite("Refresh job on every backend")
struct RefreshJobTests {
    @Test("due sets are refreshed, keeping the refresh token; others are not touched", arguments: StoreFactory.allGrantStores)
    func dueVersusNotDue(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let fixture = try RefreshFixture(stores)
            defer { fixture.google.stop() }
            let token = try await fixture.seed(0, expiresIn: 60)
            try await fixture.seed(1, expiresIn: 7200)
            let untouched = try await fixture.raw(1)

            let summary = try await fixture.job().run(deadline: nil, logger: fixture.logs.logger)
            #expect(summary.scanned == (fixture.listsOnlyDue ? 1 : 2) && summary.due == 1 && summary.refreshed == 1 && summary.remaining == 0)
            let refreshed = try await fixture.current(0)
            #expect(refreshed.refreshToken == token && refreshed.accessToken.hasPrefix("ya29.fake-"))
            #expect(refreshed.expiresAt > Date().addingTimeInterval(3500) && refreshed.status == .active)
            #expect(try await fixture.raw(1) == untouched)
            let tags = try await fixture.attributes(0)
            #expect(TokenSetTags.expiry(from: tags) == Date(timeIntervalSince1970: refreshed.expiresAt.timeIntervalSince1970.rounded(.down)))
            #expect(fixture.google.requests.allSatisfy { $0.form["client_secret"] == nil })
        }
    }

    @Test("tags left stale by a write whose tagging failed are repaired from the value, without a refresh", arguments: StoreFactory.allGrantStores)
    func staleTagsRepaired(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let fixture = try RefreshFixture(stores)
            defer { fixture.google.stop() }
            try await fixture.seed(0, expiresIn: 7200)
            let fresh = try await fixture.attributes(0)
            // What a verifying write leaves when its value landed but TagResource kept failing:
            // the listing still says "awaits verification". (A stale expiry alone no longer
            // makes a set look due: the listing reads it from the write's date.)
            try await fixture.grants.mark(fixture.user(0).rawValue, attributes: [TokenSetTags.verified: "false"])
            let value = try await fixture.raw(0)

            let first = try await fixture.job().run(deadline: nil, logger: fixture.logs.logger)
            #expect(first.due == 1 && first.skipped == 1 && first.refreshed == 0 && fixture.google.tokenCalls == 0)
            #expect(first.remaining == 0, "a grant skipped after its read is finished, not remaining")
            #expect(try await fixture.attributes(0) == fresh)
            #expect(try await fixture.raw(0) == value)
            let second = try await fixture.job().run(deadline: nil, logger: fixture.logs.logger)
            #expect(second.due == 0 && second.scanned == (fixture.listsOnlyDue ? 0 : 1))
        }
    }

    @Test("a refresh token Google returns is stored, with its own digests", arguments: StoreFactory.allGrantStores)
    func rotation(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let fixture = try RefreshFixture(stores)
            defer { fixture.google.stop() }
            let token = "1//\(fixture.run)-rotating"
            fixture.google.addGrant(refreshToken: token, rotateTo: "1//\(fixture.run)-rotated")
            try await fixture.seed(0, expiresIn: 30, knownToGoogle: false, refreshToken: token)
            #expect(try await fixture.current(0).refreshTokenDigests == RefreshFixture.digester.digests(of: token))
            _ = try await fixture.job().run(deadline: nil, logger: fixture.logs.logger)
            let rotated = try await fixture.current(0)
            #expect(rotated.refreshToken == "1//\(fixture.run)-rotated")
            // Its digests, in the value and the listing, are the new token's: Google's
            // token-revoked for the old token no longer names this grant.
            let digests = RefreshFixture.digester.digests(of: "1//\(fixture.run)-rotated")
            #expect(rotated.refreshTokenDigests == digests)
            #expect(try await fixture.attributes(0)[IndexedGrantAttribute.refreshTokenHash.rawValue] == digests.hash)
            #expect(try await fixture.grants.users(with: .refreshTokenPrefix, equalTo: digests.prefix) == [fixture.user(0).rawValue])
        }
    }

    @Test("invalid_grant marks the set revoked, keeps the refresh token, shows disconnected, and is skipped next run", arguments: StoreFactory.allGrantStores)
    func invalidGrant(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let fixture = try RefreshFixture(stores)
            defer { fixture.google.stop() }
            let token = try await fixture.seed(0, expiresIn: 30, knownToGoogle: false)
            let summary = try await fixture.job().run(deadline: nil, logger: fixture.logs.logger)
            #expect(summary.revoked == 1 && summary.refreshed == 0)
            let set = try await fixture.current(0)
            #expect(set.status == .revoked && set.refreshToken == token)
            #expect(try await fixture.vault.connectionState(of: fixture.user(0)) == .revoked)
            #expect(!(try await fixture.vault.connectionState(of: fixture.user(0))).isConnected)

            let again = try await fixture.job().run(deadline: nil, logger: fixture.logs.logger)
            // A due index leaves the revoked grant out; a full listing shows it, skipped.
            #expect(again.skipped == (fixture.listsOnlyDue ? 0 : 1) && again.due == 0)
            #expect(fixture.google.tokenCalls == 1)
        }
    }

    @Test(
        "every transient Google failure leaves the secret byte-for-byte unchanged",
        arguments: [FakeGoogleFault.status(429), .status(500), .status(503), .reset, .stall], StoreFactory.allGrantStores
    )
    func transientFaults(_ fault: FakeGoogleFault, _ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let fixture = try RefreshFixture(stores, retry: RetryPolicy(maxAttempts: 2, baseDelay: .milliseconds(5), maxDelay: .milliseconds(10), totalBudget: .seconds(2), attemptTimeout: .milliseconds(300)))
            defer { fixture.google.stop() }
            try await fixture.seed(0, expiresIn: 30)
            let before = try await fixture.raw(0), tagsBefore = try await fixture.attributes(0)
            fixture.google.script([fault, fault, fault])
            let summary = try await fixture.job().run(deadline: nil, logger: fixture.logs.logger)
            #expect(summary.transient_failures == 1 && summary.refreshed == 0 && summary.revoked == 0)
            #expect(try await fixture.raw(0) == before)
            #expect(try await fixture.attributes(0) == tagsBefore, "the listing attributes (tags) are unchanged too")
        }
    }

    @Test("the race: a refresh holding Google's answer loses to store-tokens; the user's new tokens survive", arguments: StoreFactory.allGrantStores)
    func raceWithStoreTokens(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            // A patient client: the held call must outlast the store below on a loaded machine.
            let fixture = try RefreshFixture(stores, retry: RetryPolicy(maxAttempts: 1, attemptTimeout: .seconds(90)))
            defer { fixture.google.stop() }
            try await fixture.seed(0, expiresIn: 30)
            let hold = fixture.google.hold()
            let job = fixture.job()
            let logger = fixture.logs.logger
            let running = Task { try await job.run(deadline: nil, logger: logger) }
            #expect(await hold.waitUntilHeld(count: 1))

            _ = try await fixture.vault.store(
                IncomingTokens(accessToken: "ya29.user-newer", refreshToken: "1//user-newer", expiresIn: 3600, email: "u0@gmail.com"), for: fixture.user(0)
            )
            hold.release()
            let summary = try await running.value
            #expect(summary.conflicts == 1 && summary.refreshed == 0)
            let stored = try await fixture.current(0)
            #expect(stored.accessToken == "ya29.user-newer" && stored.refreshToken == "1//user-newer")
        }
    }

    @Test("two runs at once lose nothing: every grant ends active and fresh", arguments: StoreFactory.allGrantStores)
    func twoRunsAtOnce(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let fixture = try RefreshFixture(stores)
            defer { fixture.google.stop() }
            var tokens: [String] = []
            for index in 0..<20 { tokens.append(try await fixture.seed(index, expiresIn: 30)) }
            let first = fixture.job(), second = fixture.job()
            let logger = fixture.logs.logger
            async let a = first.run(deadline: nil, logger: logger)
            async let b = second.run(deadline: nil, logger: logger)
            let (one, two) = try await (a, b)
            #expect(one.transient_failures + two.transient_failures == 0)
            #expect(one.refreshed + two.refreshed >= 20)
            for index in 0..<20 {
                let set = try await fixture.current(index)
                #expect(set.status == .active && set.refreshToken == tokens[index])
                #expect(set.expiresAt > Date().addingTimeInterval(3000))
            }
        }
    }

    @Test("a near deadline stops starting work and reports what remains", arguments: StoreFactory.allGrantStores)
    func deadline(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let fixture = try RefreshFixture(stores)
            defer { fixture.google.stop() }
            for index in 0..<10 { try await fixture.seed(index, expiresIn: 30) }
            fixture.google.latency = .milliseconds(300)
            let settings = RefreshSettings(windowSeconds: 900, concurrency: 2, maxWritesPerSecond: 1000, stopMarginSeconds: 1)
            let summary = try await fixture.job(settings).run(deadline: .now + .milliseconds(1500), logger: fixture.logs.logger)
            #expect(summary.due == 10)
            #expect(summary.remaining > 0 && summary.refreshed < 10)
            #expect(summary.refreshed + summary.remaining == 10)
            // A far deadline starts everything that is left.
            let rest = try await fixture.job(settings).run(deadline: .now + .seconds(600), logger: fixture.logs.logger)
            #expect(rest.refreshed == summary.remaining && rest.remaining == 0)
        }
    }

    @Test("a shard run touches only its shard", arguments: StoreFactory.allGrantStores)
    func sharded(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let fixture = try RefreshFixture(stores)
            defer { fixture.google.stop() }
            for index in 0..<30 { try await fixture.seed(index, expiresIn: 30) }
            let shard = Shard(index: 1, count: 3)!
            var before: [Int: GrantVersion] = [:]
            for index in 0..<30 { before[index] = try await fixture.raw(index).1 }
            let summary = try await fixture.job().run(shard: shard, deadline: nil, logger: fixture.logs.logger)
            let members = (0..<30).filter { shard.contains(fixture.user($0)) }
            #expect(!members.isEmpty && members.count < 30)
            #expect(summary.scanned == members.count && summary.refreshed == members.count)
            for index in 0..<30 {
                let changed = try await fixture.raw(index).1 != before[index]
                #expect(changed == members.contains(index), "user \(index)")
            }
        }
    }

    @Test("a client Google refuses stops the run as a configuration error", arguments: StoreFactory.allGrantStores)
    func wrongClient(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let fixture = try RefreshFixture(stores)
            defer { fixture.google.stop() }
            // The grant's client, and the list's, is one Google does not know (deleted, or a typo).
            let wrong = "wrong-client.apps.googleusercontent.com"
            try await fixture.seed(0, expiresIn: 30, clientID: wrong)
            let before = try await fixture.raw(0)
            await #expect(throws: TokenRefresher.ConfigurationFailure.self) {
                try await fixture.job(clients: GoogleClients(ids: [wrong])).run(deadline: nil, logger: fixture.logs.logger)
            }
            #expect(try await fixture.raw(0) == before)
        }
    }

    @Test("refresh on demand: the stored token while fresh, a refreshed one when due", arguments: StoreFactory.allGrantStores)
    func onDemand(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let fixture = try RefreshFixture(stores)
            defer { fixture.google.stop() }
            try await fixture.seed(0, expiresIn: 7200)
            try await fixture.seed(1, expiresIn: 30)
            let refresher = fixture.refresher()
            #expect(try await refresher.freshTokenSet(for: fixture.user(0), logger: fixture.logs.logger).accessToken == "ya29.\(fixture.run)-seed-0")
            let fresh = try await refresher.freshTokenSet(for: fixture.user(1), logger: fixture.logs.logger).accessToken
            let stored = try await fixture.current(1)
            #expect(fresh.hasPrefix("ya29.fake-") && fresh == stored.accessToken)
            await #expect(throws: TokenRefresher.FreshTokenError.notConnected) {
                try await refresher.freshTokenSet(for: fixture.user(99), logger: fixture.logs.logger)
            }
        }
    }
}
