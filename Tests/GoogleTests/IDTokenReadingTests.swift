import PayPulseGoogle
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// The client reads the account from the `id_token` of a token answer, without checking its
/// signature (it came straight from the token endpoint), and refuses an unreadable one.
@Suite("the Google client reads the id_token")
struct IDTokenReadingTests {
    @Test("sub, email, email_verified and aud come from the id_token; none without openid")
    func identity() async throws {
        let fake = try FakeGoogleServer()
        defer { fake.stop() }
        fake.addGrant(refreshToken: "r-id", scope: FakeGoogleIdentityTests.signIn, account: FakeGoogleAccount(subject: "sub-1", email: "a@gmail.com", emailVerified: false))
        fake.addGrant(refreshToken: "r-plain")
        let client = GoogleFixture.client(fake)
        let grant = try await client.refresh(refreshToken: "r-id", clientID: fake.clientID)
        #expect(grant.identity == GoogleIdentity(subject: "sub-1", email: "a@gmail.com", emailVerified: false, audience: [fake.clientID]))
        #expect(grant.identity?.isIssued(to: fake.clientID) == true && grant.identity?.isIssued(to: "other") == false)
        #expect(try await client.refresh(refreshToken: "r-plain", clientID: fake.clientID).identity == nil)
    }

    @Test("an id_token that is not a readable JWT makes the answer malformed")
    func unreadable() async throws {
        let fake = try FakeGoogleServer()
        defer { fake.stop() }
        fake.script([.response(status: 200, headers: ["Content-Type": "application/json"], body: #"{"access_token":"ya29.x","expires_in":3599,"id_token":"not-a-jwt"}"#)])
        let error = await #expect(throws: GoogleOAuthError.self) {
            try await GoogleFixture.client(fake).refresh(refreshToken: "r", clientID: fake.clientID)
        }
        #expect(error?.kind == .rejected && error?.code == "malformed_response")
    }
}
