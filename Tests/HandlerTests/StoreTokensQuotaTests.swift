import Foundation
import PayPulseDomain
import PayPulseHandlers
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// store-tokens counts each well-formed post against the user's allowance before Google or the
/// store sees it.
@Suite("store-tokens: each user's posts per minute")
struct StoreTokensQuotaTests {
    static let connect = #"{"access_token":"ya29.a","refresh_token":"1//first","expires_in":3600,"scope":"\#(gmailScope)"}"#

    @Test("beyond the limit: 429 too_many_requests with Retry-After, no call to Google, nothing written; others unaffected")
    func beyondTheLimitIsRefusedWithoutACallOrAWrite() async throws {
        let fixture = try await HandlerFixture()
        let quota = InMemoryRequestQuota(rule: QuotaRule(limit: 2))
        var clock = HandlerFixture.now
        let handler = { @Sendable (now: Date) in
            StoreTokensHandler(guardian: fixture.guardian, quota: quota, vault: fixture.vault, verifier: fixture.verifier, metrics: DiscardedMetrics(), now: { now })
        }
        for _ in 0..<2 {
            #expect(await handler(clock).handle(try await fixture.post(json: Self.connect), logger: fixture.logs.logger).status == 201)
            clock.addTimeInterval(5)
        }
        let stored = try #require(try await fixture.vault.current(of: UserID("user-1")!))
        let refused = await handler(clock).handle(try await fixture.post(json: Self.connect), logger: fixture.logs.logger)
        #expect(refused.status == 429)
        #expect(try errorCode(refused) == "too_many_requests")
        // The first post leaves the minute 50 s from now.
        #expect(refused.headers["retry-after"] == "50")
        #expect(fixture.google.refreshes == ["1//first", "1//first"])
        #expect(try await fixture.vault.current(of: UserID("user-1")!)?.tokenSet.version == stored.tokenSet.version)
        #expect(!fixture.logs.lines.joined().contains("ya29") && !fixture.logs.lines.joined().contains("1//first"))

        // Another user has an allowance of their own; the first user's returns as its posts leave the minute.
        let other = try await fixture.post(json: #"{"access_token":"ya29.b","refresh_token":"r1"}"#, token: try await fixture.token("user-2"))
        #expect(await handler(clock).handle(other, logger: fixture.logs.logger).status == 201)
        #expect(await handler(HandlerFixture.now.addingTimeInterval(60.5)).handle(try await fixture.post(json: Self.connect), logger: fixture.logs.logger).status == 201)
    }

    @Test("a malformed post is answered 400 without using the allowance")
    func malformedPostsAreNotCounted() async throws {
        let fixture = try await HandlerFixture()
        let quota = InMemoryRequestQuota(rule: QuotaRule(limit: 1))
        let handler = StoreTokensHandler(guardian: fixture.guardian, quota: quota, vault: fixture.vault, verifier: fixture.verifier, metrics: DiscardedMetrics(), now: { HandlerFixture.now })
        for _ in 0..<3 {
            #expect(await handler.handle(try await fixture.post(json: #"{"refresh_token":"1//first"}"#), logger: fixture.logs.logger).status == 400)
        }
        #expect(await quota.takes == 0)
        #expect(await handler.handle(try await fixture.post(json: Self.connect), logger: fixture.logs.logger).status == 201)
    }

    @Test("a count that cannot be kept lets the post through, logged as uncounted and counted in the QuotaFailed metric", arguments: [StoreError.unavailable, .notFound, .accessDenied])
    func unreachableCountLetsThePostThrough(fault: StoreError) async throws {
        let fixture = try await HandlerFixture()
        let quota = InMemoryRequestQuota(rule: QuotaRule(limit: 1))
        await quota.setFault(fault)
        let metrics = SecurityEventsHandlerTests.Lines()
        let handler = StoreTokensHandler(guardian: fixture.guardian, quota: quota, vault: fixture.vault, verifier: fixture.verifier, metrics: metrics, now: { HandlerFixture.now })
        #expect(await handler.handle(try await fixture.post(json: Self.connect), logger: fixture.logs.logger).status == 201)
        #expect(!fixture.logs.lines(containingAnyOf: ["store-tokens not counted"]).isEmpty)
        let line = try #require(metrics.all.first, "one metrics line")
        #expect(metrics.all.count == 1 && line["QuotaFailed"] as? Int == 1 && line["Function"] as? String == "store-tokens")
        let directive = ((line["_aws"] as? [String: Any])?["CloudWatchMetrics"] as? [[String: Any]])?.first
        #expect(directive?["Namespace"] as? String == "PayPulse/StoreTokens", "the namespace template.yaml's alarm watches")
        // A count that works emits nothing.
        await quota.setFault(nil)
        #expect(await handler.handle(try await fixture.post(json: Self.connect), logger: fixture.logs.logger).status != 500)
        #expect(metrics.all.count == 1)
    }
}
