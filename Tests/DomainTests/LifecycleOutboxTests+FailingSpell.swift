import Foundation
import PayPulseDomain
import PayPulseTestSupport
import Testing

/// The `Gmail Refresh Failing` spell against the app's own posts: a post that brings no new
/// refresh token (an access token alone, the same grant again) says nothing of whether
/// Google renews the grant, so it keeps the spell; a new refresh token is a new grant.
extension LifecycleOutboxTests {
    @Test("access-token-only posts every day keep the failing spell: Refresh Failing comes past the span; a new refresh token starts over")
    func spellSurvivesPostsWithoutANewRefreshToken() async throws {
        let user = UserID("outbox-failing-posts")!, google = InMemoryGoogleOAuth()
        let clock = MovingClock(), vault = vault(now: { clock.now })
        google.addGrant("1//s", subject: "1", email: nil)
        _ = try await vault.store(IncomingTokens(accessToken: "ya29.x", refreshToken: "1//s", expiresIn: 60, scopes: [GmailScopes.readonly], subject: "1"), for: user)
        let refresher = TokenRefresher(vault: vault, google: google, clients: GoogleClients(ids: [google.clientID]), windowSeconds: 900, now: { clock.now })
        google.set("1//s", .unavailable)
        let started = clock.now
        for day in 0..<4 {
            _ = try await refresher.refreshIfDue(user, force: true, logger: quiet)
            clock.advance(by: 86_400)
            _ = try await vault.store(IncomingTokens(accessToken: "ya29.day\(day)", expiresIn: 60), for: user)
            let since = try await vault.current(of: user)?.tokenSet.lifecycle?.failingSince
            #expect(since.map { abs($0.timeIntervalSince(started)) < 1 } == true, "day \(day): the spell goes on (kept to the second)")
        }
        _ = try await refresher.refreshIfDue(user, force: true, logger: quiet)
        #expect(bus.types == ["Gmail Connected", "Gmail Refresh Failing"], "reported once the spell outlasted the span")

        _ = try await vault.store(IncomingTokens(accessToken: "ya29.new", refreshToken: "1//t", expiresIn: 60, scopes: [GmailScopes.readonly], subject: "1"), for: user)
        let outbox = try await vault.current(of: user)?.tokenSet.lifecycle
        #expect(outbox?.failingSince == nil && outbox?.failingReported == false, "a new refresh token: a new grant, no spell")
    }
}
