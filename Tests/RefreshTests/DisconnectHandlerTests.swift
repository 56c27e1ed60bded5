import Foundation
import PayPulseDomain
import PayPulseHandlers
import PayPulsePorts
import PayPulseTestSupport
import Testing

@Suite("disconnect handler on every backend")
struct DisconnectHandlerTests {
    private func request(_ fixture: RefreshFixture, user index: Int, method: String = "DELETE", authorized: Bool = true) async throws -> APIRequest {
        let settings = try AuthSettings(key: Array(AuthSettings.developmentKey.utf8))
        let now = Date()
        let jwt = try DevelopmentTokenMinter(settings: settings).mint(
            subject: fixture.user(index).rawValue, name: nil, email: nil, issuedAt: now, expiresAt: now.addingTimeInterval(600)
        )
        return APIRequest(method: method, path: "/v1/auth/gmail-tokens", headers: APIHeaders(authorized ? ["authorization": "Bearer \(jwt)"] : [:]))
    }

    private func handler(_ fixture: RefreshFixture) async throws -> DisconnectHandler {
        let settings = try AuthSettings(key: Array(AuthSettings.developmentKey.utf8))
        return DisconnectHandler(
            guardian: RequestGuard(authenticator: Authenticator(settings: settings)), vault: fixture.vault,
            google: fixture.client, recoveryWindowDays: 7
        )
    }

    @Test("revokes at Google, deletes recoverably, shows disconnected; a reconnect works", arguments: StoreFactory.all)
    func disconnectAndReconnect(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let fixture = try RefreshFixture(stores)
            defer { fixture.google.stop() }
            let token = try await fixture.seed(0, expiresIn: 3600)
            let response = try await handler(fixture).handle(try await request(fixture, user: 0), logger: fixture.logs.logger)
            #expect(response.status == 200)
            #expect(response.body == #"{"data":{"google_email":"u0@gmail.com","revoked_at_google":true},"message":"Gmail account disconnected"}"#)
            #expect(fixture.google.revokedTokens.contains(token))
            let description = try await stores.secrets.describeSecret(name: fixture.user(0).secretName)
            #expect(description.deletedDate != nil)
            #expect(try await fixture.vault.connectionState(of: fixture.user(0)) == .scheduledForDeletion)

            let again = try await handler(fixture).handle(try await request(fixture, user: 0), logger: fixture.logs.logger)
            #expect(again.status == 404)

            let reconnect = try await fixture.vault.store(IncomingTokens(accessToken: "ya29.back", refreshToken: "1//back", email: "u0@gmail.com"), for: fixture.user(0))
            #expect(reconnect.outcome == .firstConnection)
            #expect(try await fixture.vault.connectionState(of: fixture.user(0)) == .connected)
            #expect(try await fixture.current(0).accessToken == "ya29.back")
        }
    }

    @Test("a Google failure does not block the disconnect and is reported", arguments: StoreFactory.all)
    func googleDown(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let fixture = try RefreshFixture(stores)
            defer { fixture.google.stop() }
            try await fixture.seed(0, expiresIn: 3600)
            fixture.google.script([.status(503), .status(503), .status(503)], on: .revoke)
            let response = try await handler(fixture).handle(try await request(fixture, user: 0), logger: fixture.logs.logger)
            #expect(response.status == 200)
            #expect(response.body.contains(#""revoked_at_google":false"#))
            #expect(try await fixture.vault.connectionState(of: fixture.user(0)) == .scheduledForDeletion)
        }
    }

    @Test("nothing connected is 404; no token is 401; wrong method is 405; store down is 503, nothing deleted, the revoked grant marked")
    func failures() async throws {
        try await StoreFactory.inMemory.withStores { stores in
            let fixture = try RefreshFixture(stores)
            defer { fixture.google.stop() }
            let handler = try await handler(fixture)
            #expect(await handler.handle(try await request(fixture, user: 5), logger: fixture.logs.logger).status == 404)
            #expect(await handler.handle(try await request(fixture, user: 5, authorized: false), logger: fixture.logs.logger).status == 401)
            let wrong = await handler.handle(try await request(fixture, user: 5, method: "POST"), logger: fixture.logs.logger)
            #expect(wrong.status == 405 && wrong.headers["allow"] == "DELETE")

            try await fixture.seed(0, expiresIn: 3600)
            let memory = try #require(stores.secrets as? InMemorySecretStore)
            await memory.setFault { $0 == "DeleteSecret" ? .unavailable : nil }
            let down = await handler.handle(try await request(fixture, user: 0), logger: fixture.logs.logger)
            #expect(down.status == 503)
            await memory.setFault(nil)
            // Revoked at Google and marked so before the delete failed: not shown as connected,
            // and still there for the app's retry to delete.
            #expect(try await fixture.vault.connectionState(of: fixture.user(0)) == .revoked)
            #expect(try await fixture.current(0).status == .revoked)
        }
    }

    @Test("a delete that already happened (its first answer lost, the retry refused) is a disconnect, not a 404")
    func deleteAnswerLost() async throws {
        try await StoreFactory.inMemory.withStores { stores in
            let fixture = try RefreshFixture(stores)
            defer { fixture.google.stop() }
            try await fixture.seed(0, expiresIn: 3600)
            let memory = try #require(stores.secrets as? InMemorySecretStore)
            await memory.setFault { $0 == "DeleteSecret" ? .scheduledForDeletion : nil }
            let response = try await handler(fixture).handle(try await request(fixture, user: 0), logger: fixture.logs.logger)
            #expect(response.status == 200)
            #expect(response.body.contains(#""revoked_at_google":true"#))
        }
    }

    @Test("no token or refresh token in the logs of a refresh run or a disconnect")
    func hygiene() async throws {
        try await StoreFactory.inMemory.withStores { stores in
            let fixture = try RefreshFixture(stores)
            defer { fixture.google.stop() }
            let live = try await fixture.seed(0, expiresIn: 30)
            let dead = try await fixture.seed(1, expiresIn: 30, knownToGoogle: false)
            _ = try await fixture.job().run(deadline: nil, logger: fixture.logs.logger)
            let refreshed = try await fixture.current(0).accessToken
            _ = try await handler(fixture).handle(try await request(fixture, user: 0), logger: fixture.logs.logger)
            let leaks = fixture.logs.lines(containingAnyOf: [live, dead, refreshed, "ya29.\(fixture.run)-seed-0", "ya29.\(fixture.run)-seed-1"])
            #expect(leaks.isEmpty, "\(leaks)")
            #expect(!fixture.logs.lines.isEmpty)
        }
    }
}
