import Foundation
import PayPulseDomain
import PayPulseHandlers
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// store-tokens proves a refresh token at Google before storing it: Google's answer is
/// what is stored and answered, its refusals store nothing, and Google being down never
/// loses a connect.
@Suite("store-tokens verifies the grant at Google")
struct StoreTokensVerificationTests {
    private func post(_ fixture: HandlerFixture, _ json: String) async throws -> APIResponse {
        await fixture.storeTokens.handle(try await fixture.post(json: json), logger: fixture.logs.logger)
    }

    private func data(_ response: APIResponse) throws -> [String: Any] {
        try #require(try body(response)["data"] as? [String: Any])
    }

    @Test("Google's account and scopes override the body's hints")
    func googleOverridesHints() async throws {
        let fixture = try await HandlerFixture()
        fixture.google.addGrant("1//real", subject: "sub-jane", email: "jane@gmail.com")
        let response = try await post(fixture, #"{"access_token":"ya29.app","refresh_token":"1//real","email":"mallory@gmail.com","scope":["openid"],"expires_in":60}"#)
        #expect(response.status == 201)
        let reply = try data(response)
        #expect(reply["google_email"] as? String == "jane@gmail.com")
        #expect(reply["scope"] as? String == InMemoryGoogleOAuth.signInScope)
        let set = try #require(try await fixture.vault.current(of: UserID("user-1")!)?.tokenSet)
        #expect(set.googleEmail == "jane@gmail.com" && set.googleSubject == "sub-jane" && set.emailVerified == true)
        #expect(set.accessToken.hasPrefix("ya29.google-") && set.expiresAt == HandlerFixture.now.addingTimeInterval(3599))
    }

    @Test("invalid_grant is 400 invalid_grant and stores nothing")
    func invalidGrant() async throws {
        let fixture = try await HandlerFixture()
        let response = try await post(fixture, #"{"access_token":"ya29.app","refresh_token":"1//dead"}"#)
        #expect(response.status == 400)
        #expect(try errorCode(response) == "invalid_grant")
        #expect(try body(response)["message"] as? String == APIError.invalidGrant.message)
        #expect(await fixture.secrets.calls.isEmpty)
    }

    @Test("a grant of another OAuth client is 400 foreign_client after one probe, and stores nothing")
    func foreignClient() async throws {
        let fixture = try await HandlerFixture()
        fixture.google.set("1//debug-build", .foreign)
        let response = try await post(fixture, #"{"access_token":"ya29.app","refresh_token":"1//debug-build"}"#)
        #expect(response.status == 400)
        #expect(try errorCode(response) == "foreign_client")
        #expect(fixture.google.refreshes == ["1//debug-build", OAuthClientHealth.probeRefreshToken])
        #expect(await fixture.secrets.calls.isEmpty)
    }

    @Test("an id_token that names another client is 400 foreign_client and stores nothing")
    func idTokenOfAnotherClient() async throws {
        let fixture = try await HandlerFixture()
        fixture.google.set("1//other-aud", .grant(subject: "sub-other", email: "sub-other@gmail.com", scope: InMemoryGoogleOAuth.signInScope, audience: "other-app.apps.googleusercontent.com"))
        let response = try await post(fixture, #"{"access_token":"ya29.app","refresh_token":"1//other-aud"}"#)
        #expect(response.status == 400)
        #expect(try errorCode(response) == "foreign_client")
        #expect(await fixture.secrets.calls.isEmpty)
    }

    @Test("a refresh token Google rotates while verifying is the one stored")
    func rotatedAtConnect() async throws {
        let fixture = try await HandlerFixture()
        fixture.google.set("1//before", .grant(subject: "sub-r", email: "sub-r@gmail.com", scope: InMemoryGoogleOAuth.signInScope, rotatesTo: "1//after"))
        let response = try await post(fixture, #"{"access_token":"ya29.app","refresh_token":"1//before"}"#)
        #expect(response.status == 201)
        #expect(try await fixture.vault.current(of: UserID("user-1")!)?.tokenSet.refreshToken == "1//after")
    }

    @Test("our own client deleted is 503 with a critical log, never a 4xx, and stores nothing")
    func clientDeleted() async throws {
        let fixture = try await HandlerFixture()
        fixture.google.deleteClient()
        let response = try await post(fixture, #"{"access_token":"ya29.app","refresh_token":"1//first"}"#)
        #expect(response.status == 503)
        #expect(try errorCode(response) == "upstream_unavailable")
        #expect(fixture.logs.lines.contains { $0.contains("critical") && $0.contains("deleted_client") })
        #expect(await fixture.secrets.calls.isEmpty)
    }

    @Test("a client refusal the probe cannot explain is 503 and stores nothing")
    func probeUnavailable() async throws {
        let fixture = try await HandlerFixture()
        fixture.google.set("1//unclear", .foreign)
        fixture.google.failProbes()
        let response = try await post(fixture, #"{"access_token":"ya29.app","refresh_token":"1//unclear"}"#)
        #expect(response.status == 503)
        #expect(try errorCode(response) == "upstream_unavailable")
        #expect(await fixture.secrets.calls.isEmpty)
    }

    @Test("Google unavailable: the set is stored as sent, unverified, and the answer is 201")
    func googleUnavailable() async throws {
        let fixture = try await HandlerFixture()
        fixture.google.set("1//later", .unavailable)
        let response = try await post(fixture, #"{"access_token":"ya29.app","refresh_token":"1//later","email":"u@gmail.com","scope":["\#(gmailScope)"],"expires_in":1800}"#)
        #expect(response.status == 201)
        #expect(try data(response)["google_email"] as? String == "u@gmail.com")
        let set = try #require(try await fixture.vault.current(of: UserID("user-1")!)?.tokenSet)
        #expect(set.accessToken == "ya29.app" && set.refreshToken == "1//later" && !set.verified && set.googleSubject == nil)
        let tags = try await fixture.secrets.describeSecret(name: "gmail/user/user-1").tags
        #expect(tags["paypulse:verified"] == "false" && tags["paypulse:status"] == "active")
        #expect(try await fixture.vault.connectionState(of: UserID("user-1")!) == .connected)
    }

    @Test(
        "scopes that include reading Gmail satisfy it; others are 403",
        arguments: [
            ("openid https://www.googleapis.com/auth/gmail.modify", 201),
            ("openid https://mail.google.com/", 201),
            ("openid https://www.googleapis.com/auth/gmail.readonly", 201),
            ("openid https://www.googleapis.com/auth/gmail.send", 403),
            ("openid https://www.googleapis.com/auth/gmail.metadata", 403),
        ]
    )
    func readingScopes(scope: String, status: Int) async throws {
        let fixture = try await HandlerFixture()
        fixture.google.addGrant("1//scoped", subject: "sub-s", email: "s@gmail.com", scope: scope)
        let response = try await post(fixture, #"{"access_token":"ya29.app","refresh_token":"1//scoped"}"#)
        #expect(response.status == status)
        if status == 403 { #expect(try errorCode(response) == "missing_scope") }
    }

    @Test("the same Google subject under a renamed address is an update, not a switch")
    func renameIsNotASwitch() async throws {
        let fixture = try await HandlerFixture()
        fixture.google.addGrant("1//old-name", subject: "sub-jane", email: "jane.old@gmail.com")
        fixture.google.addGrant("1//new-name", subject: "sub-jane", email: "jane.new@gmail.com")
        _ = try await post(fixture, #"{"access_token":"a","refresh_token":"1//old-name"}"#)
        let renamed = try data(try await post(fixture, #"{"access_token":"b","refresh_token":"1//new-name"}"#))
        #expect(renamed["account_switch"] as? Bool == false && renamed["google_email"] as? String == "jane.new@gmail.com")
        let set = try #require(try await fixture.vault.current(of: UserID("user-1")!)?.tokenSet)
        #expect(set.googleEmail == "jane.new@gmail.com" && set.connectedAt == HandlerFixture.now)
    }

    @Test("another Google subject is a switch even when the body claims the stored address")
    func otherSubjectIsASwitch() async throws {
        let fixture = try await HandlerFixture()
        fixture.google.addGrant("1//jane", subject: "sub-jane", email: "jane@gmail.com")
        fixture.google.addGrant("1//bob", subject: "sub-bob", email: "bob@gmail.com")
        _ = try await post(fixture, #"{"access_token":"a","refresh_token":"1//jane"}"#)
        let switched = try data(try await post(fixture, #"{"access_token":"b","refresh_token":"1//bob","email":"jane@gmail.com"}"#))
        #expect(switched["account_switch"] as? Bool == true && switched["google_email"] as? String == "bob@gmail.com")
    }

    @Test("a set stored before subjects existed is compared by email")
    func legacySetComparedByEmail() async throws {
        let fixture = try await HandlerFixture()
        let legacy = #"{"access_token":"a","connected_at":"2027-01-01T00:00:00Z","expires_at":"2027-01-01T01:00:00Z","google_email":"Jane@gmail.com","refresh_token":"1//legacy","scope":"x","status":"active","token_type":"Bearer","updated_at":"2027-01-01T00:00:00Z","version":1}"#
        _ = try await fixture.secrets.createSecret(name: "gmail/user/user-1", value: legacy, tags: [:], clientRequestToken: SecretVersionID.random().rawValue)
        fixture.google.addGrant("1//jane", subject: "sub-jane", email: "jane@gmail.com")
        let same = try data(try await post(fixture, #"{"access_token":"b","refresh_token":"1//jane"}"#))
        #expect(same["account_switch"] as? Bool == false)
        let set = try #require(try await fixture.vault.current(of: UserID("user-1")!)?.tokenSet)
        #expect(set.googleSubject == "sub-jane" && set.version == 2)
    }

    @Test("a body without a refresh token asks Google nothing")
    func noRefreshTokenNoCall() async throws {
        let fixture = try await HandlerFixture()
        let response = try await post(fixture, #"{"access_token":"ya29.only","email":"u@gmail.com","scope":["\#(gmailScope)"]}"#)
        #expect(response.status == 201 && fixture.google.refreshes.isEmpty)
    }
}

extension StoreTokensVerificationTests {
    @Test("a grant without openid has no id_token: the body's address stays as an unconfirmed hint")
    func noIDTokenKeepsHint() async throws {
        let fixture = try await HandlerFixture()
        fixture.google.addGrant("1//no-openid", subject: "sub-x", email: "x@gmail.com", scope: gmailScope)
        let response = await fixture.storeTokens.handle(
            try await fixture.post(json: #"{"access_token":"a","refresh_token":"1//no-openid","email":"hint@gmail.com"}"#), logger: fixture.logs.logger
        )
        #expect(response.status == 201)
        let set = try #require(try await fixture.vault.current(of: UserID("user-1")!)?.tokenSet)
        #expect(set.googleEmail == "hint@gmail.com" && set.googleSubject == nil && set.emailVerified == nil && set.verified)
        #expect(set.accessToken.hasPrefix("ya29.google-") && set.scope == gmailScope)
    }
}

/// The app may name the OAuth client it signed in with; it orders the trial of our clients
/// and nothing more.
@Suite("store-tokens reads the app's client_id as a hint")
struct StoreTokensClientHintTests {
    @Test("a client_id that is none of ours is never used: the grant is proved with ours and records ours")
    func strangerHint() async throws {
        let fixture = try await HandlerFixture()
        let response = await fixture.storeTokens.handle(
            try await fixture.post(json: #"{"access_token":"ya29.app","refresh_token":"1//first","client_id":"someone-elses.apps.googleusercontent.com"}"#),
            logger: fixture.logs.logger
        )
        #expect(response.status == 201)
        #expect(fixture.google.refreshes == ["1//first"])
        #expect(try await fixture.vault.current(of: UserID("user-1")!)?.tokenSet.googleClientID == fixture.google.clientID)
    }

    @Test("a client_id that is not a string, or too long, is 400 invalid_request naming it, and nothing is asked or stored")
    func malformedHint() async throws {
        let fixture = try await HandlerFixture()
        for json in [#"{"access_token":"a","refresh_token":"1//first","client_id":7}"#, #"{"access_token":"a","refresh_token":"1//first","client_id":"\#(String(repeating: "c", count: 257))"}"#] {
            let response = await fixture.storeTokens.handle(try await fixture.post(json: json), logger: fixture.logs.logger)
            #expect(response.status == 400)
            #expect(try errorCode(response) == "invalid_request")
            #expect((try body(response)["message"] as? String ?? "").contains("client_id"))
        }
        #expect(fixture.google.refreshes.isEmpty)
        #expect(await fixture.secrets.calls.isEmpty)
    }
}
