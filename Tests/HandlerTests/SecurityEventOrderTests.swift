import Foundation
import PayPulseDomain
import PayPulseHandlers
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// Google delivers late (a redelivery after our 503) and out of order: an event acts on a
/// grant only if it is not older than what we know of it, through the receiver as Google
/// posts, with tokens PyJWT signs. Each is answered 202 whatever it did.
@Suite("security-events: an older event never undoes a newer grant or a newer account event")
struct SecurityEventOrderTests {
    static let revoked = "https://schemas.openid.net/secevent/oauth/event-type/tokens-revoked"
    static let disabled = "https://schemas.openid.net/secevent/risc/event-type/account-disabled"
    static let enabled = "https://schemas.openid.net/secevent/risc/event-type/account-enabled"

    @Test("tokens-revoked issued an hour before Google last proved the grant, and a 10-minute-old account-disabled, leave it connected")
    func olderThanTheProof() async throws {
        let signed = try SecurityEventsHandlerTests.sign([Self.revoked, Self.disabled], ages: [3600, 600])
        let bench = try await SecurityEventsHandlerTests.Bench(keySet: signed.jwks)
        for token in signed.tokens {
            #expect(await bench.post(token).status == 202)
            #expect(try await bench.status() == .active)
        }
        #expect(bench.logs.lines.filter { $0.contains("older than what we know") }.count == 2)
        #expect(bench.lines.all.map { $0["GrantsStale"] as? Int } == [1, 1])
    }

    @Test("Google's redelivery, after our 503, of a tokens-revoked issued before the user reconnected: the reconnect stands")
    func redeliveredPastAReconnect() async throws {
        let signed = try SecurityEventsHandlerTests.sign([Self.revoked], ages: [120])
        let bench = try await SecurityEventsHandlerTests.Bench(keySet: signed.jwks, proved: false)
        await bench.ledger.setFault(.unavailable)
        #expect(await bench.post(signed.tokens[0]).status == 503)
        await bench.ledger.setFault(nil)
        // The user reconnects; Google proves the new grant.
        _ = try await bench.vault.store(
            IncomingTokens(accessToken: "ya29.again", refreshToken: "1//again", scopes: [GmailScopes.readonly], subject: SecurityEventsHandlerTests.subject),
            for: UserID("user-1")!
        )
        #expect(await bench.post(signed.tokens[0]).status == 202)
        #expect(try await bench.status() == .active)
    }

    @Test("an event issued within the 60 s leeway before the proof acts: when in doubt, revoke")
    func withinTheLeeway() async throws {
        let signed = try SecurityEventsHandlerTests.sign([Self.revoked], ages: [30])
        let bench = try await SecurityEventsHandlerTests.Bench(keySet: signed.jwks)
        #expect(await bench.post(signed.tokens[0]).status == 202)
        #expect(try await bench.status() == .revoked)
    }

    /// On a grant with no proof to compare with, so only the account events' order decides.
    @Test("account-enabled, then an account-disabled issued before it: the account stays enabled, and the refresh run asks Google")
    func latestAccountEventWins() async throws {
        let signed = try SecurityEventsHandlerTests.sign([Self.disabled, Self.enabled, Self.disabled], ages: [300, 10, 130])
        let bench = try await SecurityEventsHandlerTests.Bench(keySet: signed.jwks, proved: false)
        #expect(await bench.post(signed.tokens[0]).status == 202)
        #expect(try await bench.set()?.status == .disabled)
        #expect(await bench.post(signed.tokens[1]).status == 202)
        #expect(try await bench.set()?.verified == false, "enabled: awaiting Google's word")
        #expect(await bench.post(signed.tokens[2]).status == 202)
        let set = try #require(try await bench.set())
        #expect(set.status == .disabled && !set.verified && set.isRefreshable, "the older disabled changed nothing")
        #expect(bench.lines.all.last?["GrantsStale"] as? Int == 1)
    }

    @Test("account-disabled, then an account-enabled issued before it: the account stays disabled")
    func olderEnableChangesNothing() async throws {
        let signed = try SecurityEventsHandlerTests.sign([Self.disabled, Self.enabled], ages: [10, 200])
        let bench = try await SecurityEventsHandlerTests.Bench(keySet: signed.jwks, proved: false)
        #expect(await bench.post(signed.tokens[0]).status == 202)
        #expect(await bench.post(signed.tokens[1]).status == 202)
        let set = try #require(try await bench.set())
        #expect(set.status == .disabled && set.verified && !set.isRefreshable)
    }
}
