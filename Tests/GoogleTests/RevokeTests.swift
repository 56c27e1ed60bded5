import PayPulseGoogle
import PayPulsePorts
import PayPulseTestSupport
import PayPulseTransport
import Testing

@Suite("revoke against the fake revoke endpoint")
struct RevokeTests {
    @Test("revoking the refresh token ends the grant: later refreshes are invalid_grant")
    func revokeRefreshToken() async throws {
        let fake = try GoogleFixture.fakeWithGrant()
        defer { fake.stop() }
        let client = GoogleFixture.client(fake)
        try await client.revoke(token: GoogleFixture.refreshToken)
        #expect(fake.revokeCalls == 1 && fake.revokedTokens == [GoogleFixture.refreshToken])
        let request = try #require(fake.requests.first)
        #expect(request.endpoint == .revoke && request.contentType == "application/x-www-form-urlencoded")
        #expect(request.form == ["token": GoogleFixture.refreshToken])

        let error = await #expect(throws: GoogleOAuthError.self) {
            try await client.refresh(refreshToken: GoogleFixture.refreshToken, clientID: fake.clientID)
        }
        #expect(error?.kind == .invalidGrant)
    }

    @Test("revoking an access token the fake issued revokes its grant too")
    func revokeAccessToken() async throws {
        let fake = try GoogleFixture.fakeWithGrant()
        defer { fake.stop() }
        let client = GoogleFixture.client(fake)
        let grant = try await client.refresh(refreshToken: GoogleFixture.refreshToken, clientID: fake.clientID)
        try await client.revoke(token: grant.accessToken)
        let error = await #expect(throws: GoogleOAuthError.self) {
            try await client.refresh(refreshToken: GoogleFixture.refreshToken, clientID: fake.clientID)
        }
        #expect(error?.kind == .invalidGrant)
    }

    @Test("an unknown token, or one revoked already, is invalid_token")
    func unknownToken() async throws {
        let fake = try GoogleFixture.fakeWithGrant()
        defer { fake.stop() }
        let client = GoogleFixture.client(fake, retry: GoogleFixture.quickRetry)
        let error = await #expect(throws: GoogleOAuthError.self) { try await client.revoke(token: "1//0gUnknown") }
        #expect(error == GoogleOAuthError(kind: .invalidToken, code: "invalid_token", detail: "Token expired or revoked"))

        try await client.revoke(token: GoogleFixture.refreshToken)
        let again = await #expect(throws: GoogleOAuthError.self) { try await client.revoke(token: GoogleFixture.refreshToken) }
        #expect(again?.kind == .invalidToken)
        #expect(fake.revokeCalls == 3)
    }

    @Test("a 503 at the revoke endpoint is retried like a refresh")
    func transientRevoke() async throws {
        let fake = try GoogleFixture.fakeWithGrant()
        defer { fake.stop() }
        fake.script([.status(503)], on: .revoke)
        try await GoogleFixture.client(fake, retry: GoogleFixture.quickRetry).revoke(token: GoogleFixture.refreshToken)
        #expect(fake.revokeCalls == 2 && fake.tokenCalls == 0)
    }

    @Test("a revoke that reached Google but whose answer was lost is done: the retry's invalid_token is not a failure")
    func revokeAnswerLost() async throws {
        let fake = try GoogleFixture.fakeWithGrant()
        defer { fake.stop() }
        let proxy = try FaultProxy(upstream: String(fake.tokenEndpoint.dropLast("/token".count)), dialect: .google)
        defer { proxy.stop() }
        proxy.plan.inject(.resetAfterForward, at: .operation("revoke", occurrence: 1))
        let client = GoogleOAuthClient(
            tokenEndpoint: proxy.url + "/token", revokeEndpoint: proxy.url + "/revoke", transport: CurlHTTPClient(), retry: GoogleFixture.quickRetry,
            logger: LogCapture().logger
        )
        // A refresh first leaves an idle connection that libcurl would reuse, and resend on.
        _ = try await client.refresh(refreshToken: GoogleFixture.refreshToken, clientID: fake.clientID)
        try await client.revoke(token: GoogleFixture.refreshToken)
        #expect(fake.revokeCalls == 2 && fake.revokedTokens == [GoogleFixture.refreshToken])
        #expect(proxy.plan.count(of: "revoke") == 2)
    }
}
