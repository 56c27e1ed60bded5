import PayPulseGoogle
import PayPulsePorts
import PayPulseTestSupport
import Testing

@Suite("refresh against the fake token endpoint")
struct RefreshTests {
    @Test("a known grant refreshes: every field parsed, a form with the client ID and no secret")
    func success() async throws {
        let fake = try GoogleFixture.fakeWithGrant()
        defer { fake.stop() }
        let grant = try await GoogleFixture.client(fake).refresh(refreshToken: GoogleFixture.refreshToken, clientID: fake.clientID)
        #expect(grant == GoogleRefreshAnswer(accessToken: "ya29.fake-1", expiresIn: 3599, scope: GoogleFixture.gmailScope, tokenType: "Bearer"))

        let request = try #require(fake.requests.first)
        #expect(request.endpoint == .token && request.method == "POST")
        #expect(request.contentType == "application/x-www-form-urlencoded")
        #expect(request.form == ["client_id": fake.clientID, "grant_type": "refresh_token", "refresh_token": GoogleFixture.refreshToken])
        #expect(request.form["client_secret"] == nil)
        #expect(
            request.body == "client_id=fake-ios-client.apps.googleusercontent.com&grant_type=refresh_token"
                + "&refresh_token=1%2F%2F0gRefresh%2Btoken%2Fwith%3Dodd%26chars%20%C3%BC"
        )
        #expect(fake.tokenCalls == 1 && fake.refreshCount(for: GoogleFixture.refreshToken) == 1)
    }

    @Test("a rotation hands back the new refresh token once; the old one stays valid")
    func rotation() async throws {
        let fake = try GoogleFixture.fakeWithGrant(rotateTo: "1//0gRotated")
        defer { fake.stop() }
        let client = GoogleFixture.client(fake)
        let first = try await client.refresh(refreshToken: GoogleFixture.refreshToken, clientID: fake.clientID)
        #expect(first.refreshToken == "1//0gRotated")
        let again = try await client.refresh(refreshToken: GoogleFixture.refreshToken, clientID: fake.clientID)
        #expect(again.refreshToken == nil && again.accessToken == "ya29.fake-2")
        let rotated = try await client.refresh(refreshToken: "1//0gRotated", clientID: fake.clientID)
        #expect(rotated.accessToken == "ya29.fake-3")
        #expect(fake.refreshCount(for: GoogleFixture.refreshToken) == 3)
    }

    @Test("an unknown refresh token is invalid_grant, asked once even under a retrying policy")
    func unknownGrant() async throws {
        let fake = try FakeGoogleServer()
        defer { fake.stop() }
        let error = await #expect(throws: GoogleOAuthError.self) {
            try await GoogleFixture.client(fake, retry: GoogleFixture.quickRetry).refresh(refreshToken: "1//0gUnknown", clientID: fake.clientID)
        }
        #expect(error == GoogleOAuthError(kind: .invalidGrant, code: "invalid_grant", detail: "Token has been expired or revoked."))
        #expect(fake.tokenCalls == 1)
    }

    @Test("a grant revoked behind our back is invalid_grant, asked once")
    func revokedGrant() async throws {
        let fake = try GoogleFixture.fakeWithGrant()
        defer { fake.stop() }
        let client = GoogleFixture.client(fake, retry: GoogleFixture.quickRetry)
        _ = try await client.refresh(refreshToken: GoogleFixture.refreshToken, clientID: fake.clientID)
        fake.invalidateGrant(refreshToken: GoogleFixture.refreshToken)
        let error = await #expect(throws: GoogleOAuthError.self) {
            try await client.refresh(refreshToken: GoogleFixture.refreshToken, clientID: fake.clientID)
        }
        #expect(error?.kind == .invalidGrant)
        #expect(fake.tokenCalls == 2)
    }

    @Test("invalid_rapt rides along as an error_subtype of invalid_grant and is kept in the detail")
    func invalidRapt() async throws {
        let fake = try GoogleFixture.fakeWithGrant()
        defer { fake.stop() }
        let body = #"{"error":"invalid_grant","error_description":"reauth related error (invalid_rapt)","error_subtype":"invalid_rapt"}"#
        fake.script([.response(status: 400, headers: ["Content-Type": "application/json"], body: body)])
        let error = await #expect(throws: GoogleOAuthError.self) {
            try await GoogleFixture.client(fake).refresh(refreshToken: GoogleFixture.refreshToken, clientID: fake.clientID)
        }
        #expect(error?.kind == .invalidGrant && error?.code == "invalid_grant")
        #expect(error?.detail == "reauth related error (invalid_rapt) [error_subtype: invalid_rapt]")
    }

    @Test("a client ID Google does not know is a configuration error, not retried")
    func invalidClient() async throws {
        let fake = try GoogleFixture.fakeWithGrant()
        defer { fake.stop() }
        let error = await #expect(throws: GoogleOAuthError.self) {
            try await GoogleFixture.client(fake, retry: GoogleFixture.quickRetry)
                .refresh(refreshToken: GoogleFixture.refreshToken, clientID: "other.apps.googleusercontent.com")
        }
        #expect(error == GoogleOAuthError(kind: .clientRefused, code: "invalid_client", detail: "The OAuth client was not found."))
        #expect(fake.tokenCalls == 1)
    }

    @Test(
        "other refusals are classified once and never retried",
        arguments: [
            (401, #"{"error":"unauthorized_client","error_description":"Unauthorized"}"#, GoogleOAuthError.Kind.clientRefused, "unauthorized_client"),
            (401, #"{"error":"invalid_client","error_description":"Unauthorized"}"#, .clientRefused, "invalid_client"),
            (401, #"{"error":"deleted_client","error_description":"The OAuth client was deleted."}"#, .clientBroken, "deleted_client"),
            (400, #"{"error":"invalid_request","error_description":"Bad Request"}"#, .rejected, "invalid_request"),
            (400, #"{"error":"unsupported_grant_type","error_description":"Invalid grant_type: "}"#, .rejected, "unsupported_grant_type"),
            (400, "<html>Bad Request</html>", .rejected, "http_400"),
            (403, "", .rejected, "http_403"),
            (400, #"{"error":{"code":400,"message":"nested"}}"#, .rejected, "http_400"),
        ]
    )
    func refusals(status: Int, body: String, kind: GoogleOAuthError.Kind, code: String) async throws {
        let fake = try GoogleFixture.fakeWithGrant()
        defer { fake.stop() }
        fake.script([.response(status: status, body: body)])
        let error = await #expect(throws: GoogleOAuthError.self) {
            try await GoogleFixture.client(fake, retry: GoogleFixture.quickRetry).refresh(refreshToken: GoogleFixture.refreshToken, clientID: fake.clientID)
        }
        #expect(error?.kind == kind && error?.code == code)
        #expect(fake.tokenCalls == 1)
    }

    @Test(
        "a 200 that cannot be stored is rejected as malformed_response",
        arguments: [
            #"{"expires_in":3599,"token_type":"Bearer"}"#,
            #"{"access_token":"","expires_in":3599}"#,
            #"{"access_token":"ya29.x","expires_in":0}"#,
            #"{"access_token":"ya29.x","expires_in":-5}"#,
            #"{"access_token":"ya29.x"}"#,
            #"{"access_token":"ya29.x","expires_in":"soon"}"#,
            "OK",
            "",
        ]
    )
    func malformed(body: String) async throws {
        let fake = try GoogleFixture.fakeWithGrant()
        defer { fake.stop() }
        fake.script([.response(status: 200, headers: ["Content-Type": "application/json"], body: body)])
        let error = await #expect(throws: GoogleOAuthError.self) {
            try await GoogleFixture.client(fake, retry: GoogleFixture.quickRetry).refresh(refreshToken: GoogleFixture.refreshToken, clientID: fake.clientID)
        }
        #expect(error?.kind == .rejected && error?.code == "malformed_response")
        #expect(error.map { !$0.description.contains("ya29") } == true)
        #expect(fake.tokenCalls == 1)
    }

    @Test("a missing token_type reads as Bearer; an empty refresh_token as none")
    func lenientFields() async throws {
        let fake = try GoogleFixture.fakeWithGrant()
        defer { fake.stop() }
        fake.script([.response(status: 200, body: #"{"access_token":"ya29.x","expires_in":3599,"refresh_token":""}"#)])
        let grant = try await GoogleFixture.client(fake).refresh(refreshToken: GoogleFixture.refreshToken, clientID: fake.clientID)
        #expect(grant == GoogleRefreshAnswer(accessToken: "ya29.x", expiresIn: 3599, scope: nil))
    }
}
