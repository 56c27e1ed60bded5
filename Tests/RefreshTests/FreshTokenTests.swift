import Foundation
import PayPulseCoding
import PayPulseDomain
import PayPulseHandlers
import PayPulsePorts
import PayPulseRuntime
import PayPulseTestSupport
import PayPulseTransport
import Testing

@Suite("fresh-token: a usable access token on demand, one Google refresh per process")
struct FreshTokenTests {
    private func ask(_ handler: FreshTokenHandler, _ payload: String, _ fixture: RefreshFixture) async throws -> [String: JSONValue] {
        let answer = await handler.handle(Array(payload.utf8), context: InvocationContext(logger: fixture.logs.logger))
        return try #require(try JSONBodyParser.parse(answer).objectValue)
    }

    private func handler(_ fixture: RefreshFixture) -> FreshTokenHandler {
        FreshTokenHandler(tokens: FreshTokens(refresher: fixture.refresher()))
    }

    @Test("a fresh token is served without Google; an expiring one is refreshed once and stored", arguments: StoreFactory.allGrantStores)
    func servesAndRefreshes(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let fixture = try RefreshFixture(stores)
            defer { fixture.google.stop() }
            try await fixture.seed(0, expiresIn: 7200)
            let refreshToken = try await fixture.seed(1, expiresIn: 30)
            let handler = handler(fixture)

            let fresh = try await ask(handler, #"{"user_id": "\#(fixture.user(0))"}"#, fixture)
            #expect(fresh["access_token"] == .string("ya29.\(fixture.run)-seed-0"))
            #expect(fresh["google_email"] == .string("u0@gmail.com"))
            #expect(fresh["scope"] == .string(GmailScopes.readonly))
            #expect(fixture.google.tokenCalls == 0)

            let renewed = try await ask(handler, #"{"user_id": "\#(fixture.user(1))"}"#, fixture)
            let stored = try await fixture.current(1)
            #expect(renewed["access_token"] == .string(stored.accessToken))
            #expect(renewed["expires_at"] == .string(RFC3339.string(from: stored.expiresAt)))
            #expect(stored.expiresAt > Date().addingTimeInterval(3000))
            #expect(fixture.google.refreshCount(for: refreshToken) == 1)
            #expect(fixture.logs.lines(containingAnyOf: [stored.accessToken, refreshToken]).isEmpty)
        }
    }

    @Test("codes for what cannot be served: not connected, revoked, bad input, Google down", arguments: StoreFactory.allGrantStores)
    func errorCodes(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let fixture = try RefreshFixture(stores)
            defer { fixture.google.stop() }
            let handler = handler(fixture)
            #expect(try await ask(handler, #"{"user_id": "\#(fixture.user(99))"}"#, fixture)["error"] == .string("not_connected"))
            for payload in ["", "[]", "{}", #"{"user_id": 7}"#, #"{"user_id": "../etc"}"#, #"{"user_id": "a", "user_id": "b"}"#] {
                #expect(try await ask(handler, payload.isEmpty ? "null" : payload, fixture)["error"] == .string("invalid_request"), "\(payload)")
            }

            let dead = try await fixture.seed(2, expiresIn: 30)
            fixture.google.invalidateGrant(refreshToken: dead)
            #expect(try await ask(handler, #"{"user_id": "\#(fixture.user(2))"}"#, fixture)["error"] == .string("revoked"))
            #expect(try await fixture.current(2).status == .revoked)
            let callsAfterRevoke = fixture.google.tokenCalls
            #expect(try await ask(handler, #"{"user_id": "\#(fixture.user(2))"}"#, fixture)["error"] == .string("revoked"))
            #expect(fixture.google.tokenCalls == callsAfterRevoke)

            try await fixture.seed(3, expiresIn: 30)
            fixture.google.script([.status(503), .status(503), .status(503)])
            let down = try await ask(handler, #"{"user_id": "\#(fixture.user(3))"}"#, fixture)
            #expect(down["error"] == .string("upstream_unavailable"))
            #expect(down["message"]?.stringValue?.isEmpty == false)
        }
    }

    @Test("a finished refresh is not shared again: after a disconnect the next caller is told not connected", arguments: StoreFactory.allGrantStores)
    func finishedRefreshForgotten(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let fixture = try RefreshFixture(stores)
            defer { fixture.google.stop() }
            try await fixture.seed(0, expiresIn: 30)
            // One source across calls, as a warm fresh-token process keeps it.
            let tokens = FreshTokens(refresher: fixture.refresher())
            _ = try await tokens.tokenSet(for: fixture.user(0), logger: fixture.logs.logger)
            try await fixture.vault.disconnect(fixture.user(0), recoveryWindowDays: 7)
            await #expect(throws: TokenRefresher.FreshTokenError.notConnected) {
                try await tokens.tokenSet(for: fixture.user(0), logger: fixture.logs.logger)
            }
        }
    }

    @Test("many concurrent callers for one user share one refresh in a process", arguments: StoreFactory.allGrantStores)
    func oneRefreshPerProcess(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let fixture = try RefreshFixture(stores)
            defer { fixture.google.stop() }
            let refreshToken = try await fixture.seed(0, expiresIn: 30)
            fixture.google.latency = .milliseconds(200)
            let tokens = FreshTokens(refresher: fixture.refresher())
            let answers = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<20 { group.addTask { try await tokens.tokenSet(for: fixture.user(0), logger: fixture.logs.logger).accessToken } }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(fixture.google.refreshCount(for: refreshToken) == 1)
            #expect(Set(answers) == [try await fixture.current(0).accessToken])
        }
    }

    @Test(
        "two processes refreshing at once, whatever the window: the compare-and-swap loser returns the winner's token and the next caller reuses it",
        arguments: StoreFactory.allGrantStores, [900, 86_400]
    )
    func losersReturnTheWinnersToken(_ factory: StoreFactory, windowSeconds: Int) async throws {
        try await factory.withStores { stores in
            // Patient: the first refresh waits at Google until the second arrives, however
            // slow the machine.
            let fixture = try RefreshFixture(stores, retry: RetryPolicy(maxAttempts: 1, totalBudget: .seconds(120), attemptTimeout: .seconds(90)))
            defer { fixture.google.stop() }
            let refreshToken = try await fixture.seed(0, expiresIn: 30)
            // Two processes: each its own token source and refresher; both reach Google
            // before either writes. A window of a day (REFRESH_WINDOW_SECONDS accepts it) is
            // wider than Google's 3599 s: every token is "due" the moment it is written.
            let first = FreshTokens(refresher: fixture.refresher(windowSeconds: windowSeconds))
            let second = FreshTokens(refresher: fixture.refresher(windowSeconds: windowSeconds))
            let hold = fixture.google.hold()
            async let a = first.tokenSet(for: fixture.user(0), logger: fixture.logs.logger)
            async let b = second.tokenSet(for: fixture.user(0), logger: fixture.logs.logger)
            #expect(await hold.waitUntilHeld(count: 2))
            hold.release()
            let answers = try await [a.accessToken, b.accessToken]
            #expect(answers[0] == answers[1], "the compare-and-swap loser returns the winner's token, not one more refresh")
            #expect(fixture.google.refreshCount(for: refreshToken) == 2)

            // A third process right after: the token just issued is served, not refreshed again.
            let third = FreshTokens(refresher: fixture.refresher(windowSeconds: windowSeconds))
            let later = try await third.tokenSet(for: fixture.user(0), logger: fixture.logs.logger)
            #expect(later.accessToken == answers[0])
            #expect(fixture.google.refreshCount(for: refreshToken) == 2)
            #expect(later.accessToken == (try await fixture.current(0)).accessToken)
        }
    }
}
