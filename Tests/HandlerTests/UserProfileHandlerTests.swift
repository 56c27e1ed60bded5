import Foundation
import PayPulseDomain
import PayPulseHandlers
import PayPulsePorts
import PayPulseTestSupport
import Testing

@Suite("user-profile handler")
struct UserProfileHandlerTests {
    private func profile(_ fixture: HandlerFixture) async throws -> APIResponse {
        await fixture.userProfile.handle(try await fixture.getProfile(), logger: fixture.logs.logger)
    }

    @Test("not connected: 200 with the reference body and gmail_account_connected false")
    func notConnected() async throws {
        let fixture = try await HandlerFixture()
        let response = try await profile(fixture)
        #expect(response.status == 200)
        #expect(response.body == """
            {"data":{"created_on":"2024-11-01T10:00:00Z","email":"jane@example.com","gmail_account_connected":false,"name":"Jane Smith"},\
            "message":"User profile retrieved successfully"}
            """)
    }

    @Test("connected after store-tokens; read from metadata only, never the token value")
    func connected() async throws {
        let fixture = try await HandlerFixture()
        _ = try await fixture.vault.store(IncomingTokens(accessToken: "a", refreshToken: "r"), for: UserID("user-1")!)
        await fixture.secrets.clearCalls()
        let response = try await profile(fixture)
        #expect(try (body(response)["data"] as? [String: Any])?["gmail_account_connected"] as? Bool == true)
        #expect(await fixture.secrets.calls == ["DescribeSecret"])
    }

    @Test("revoked and disconnected sets show as not connected")
    func revokedAndDeleted() async throws {
        let fixture = try await HandlerFixture()
        let user = UserID("user-1")!
        _ = try await fixture.vault.store(IncomingTokens(accessToken: "a", refreshToken: "r"), for: user)
        try await fixture.secrets.tagResource(name: user.secretName, tags: ["paypulse:status": "revoked"])
        #expect(try (body(try await profile(fixture))["data"] as? [String: Any])?["gmail_account_connected"] as? Bool == false)
        try await fixture.secrets.tagResource(name: user.secretName, tags: ["paypulse:status": "active"])
        _ = try await fixture.secrets.deleteSecret(name: user.secretName, recoveryWindowDays: 7)
        #expect(try (body(try await profile(fixture))["data"] as? [String: Any])?["gmail_account_connected"] as? Bool == false)
    }

    @Test("an unknown user is 404 not_found")
    func unknownUser() async throws {
        let fixture = try await HandlerFixture()
        let response = await fixture.userProfile.handle(try await fixture.getProfile(token: try await fixture.token("nobody")), logger: fixture.logs.logger)
        #expect(response.status == 404)
        #expect(try errorCode(response) == "not_found")
    }

    @Test("created_on is normalised to RFC 3339 UTC")
    func createdOnNormalised() async throws {
        let fixture = try await HandlerFixture()
        try await fixture.users.putUser(UserRecord(userID: "user-1", name: "J", email: "j@x.io", createdOn: "2024-11-01T12:00:00.250+02:00"))
        #expect(try (body(try await profile(fixture))["data"] as? [String: Any])?["created_on"] as? String == "2024-11-01T10:00:00Z")
    }

    @Test("wrong method 405, bad token 401, store or directory down 503")
    func failures() async throws {
        let fixture = try await HandlerFixture()
        var request = try await fixture.getProfile()
        request.method = "POST"
        #expect(await fixture.userProfile.handle(request, logger: fixture.logs.logger).status == 405)
        request = try await fixture.getProfile(token: "junk")
        let unauthorized = await fixture.userProfile.handle(request, logger: fixture.logs.logger)
        #expect(unauthorized.status == 401 && unauthorized.headers["www-authenticate"] == "Bearer")

        await fixture.users.setFault(.unavailable)
        #expect(try await profile(fixture).status == 503)
        await fixture.users.setFault(nil)
        await fixture.secrets.setFault { _ in .unavailable }
        let down = try await profile(fixture)
        #expect(down.status == 503)
        #expect(try errorCode(down) == "upstream_unavailable")
    }
}
