import PayPulseTestSupport
import PayPulseTransport
import Testing

/// Raw HTTP against the fake, to prove it enforces what the client is trusted to do.
@Suite("the fake enforces Google's rules for a public client")
struct FakeGoogleRulesTests {
    private func post(_ url: String, _ body: String, contentType: String = "application/x-www-form-urlencoded") async throws -> HTTPResponse {
        try await CurlHTTPClient().execute(HTTPRequest(method: "POST", url: url, headers: ["Content-Type": contentType], body: Array(body.utf8)))
    }

    @Test("a refresh that carries a client_secret is refused, and refreshes nothing")
    func clientSecretRefused() async throws {
        let fake = try GoogleFixture.fakeWithGrant()
        defer { fake.stop() }
        let response = try await post(
            fake.tokenEndpoint,
            "client_id=\(fake.clientID)&client_secret=shh&grant_type=refresh_token&refresh_token=1%2F%2F0gRefresh%2Btoken%2Fwith%3Dodd%26chars%20%C3%BC"
        )
        #expect(response.status == 400)
        #expect(response.bodyText == #"{"error":"invalid_request","error_description":"client_secret is not allowed for this client type."}"#)
        #expect(response.headers["content-type"]?.hasPrefix("application/json") == true)
        #expect(fake.refreshCount(for: GoogleFixture.refreshToken) == 0)

        // The same request without the secret goes through: the secret was the only fault.
        let accepted = try await post(
            fake.tokenEndpoint,
            "client_id=\(fake.clientID)&grant_type=refresh_token&refresh_token=1%2F%2F0gRefresh%2Btoken%2Fwith%3Dodd%26chars%20%C3%BC"
        )
        #expect(accepted.status == 200 && accepted.bodyText.contains(#""access_token":"ya29.fake-1""#))
    }

    @Test(
        "other malformed refreshes get Google's status and error",
        arguments: [
            ("client_id=fake-ios-client.apps.googleusercontent.com&grant_type=authorization_code&code=x", 400, "unsupported_grant_type"),
            ("client_id=fake-ios-client.apps.googleusercontent.com&refresh_token=r", 400, "unsupported_grant_type"),
            ("grant_type=refresh_token&refresh_token=r", 401, "invalid_client"),
            ("client_id=web.apps.googleusercontent.com&grant_type=refresh_token&refresh_token=r", 401, "invalid_client"),
            ("client_id=fake-ios-client.apps.googleusercontent.com&grant_type=refresh_token", 400, "invalid_request"),
            ("client_id=fake-ios-client.apps.googleusercontent.com&grant_type=refresh_token&refresh_token=r", 400, "invalid_grant"),
        ]
    )
    func refusals(body: String, status: Int, error: String) async throws {
        let fake = try FakeGoogleServer()
        defer { fake.stop() }
        let response = try await post(fake.tokenEndpoint, body)
        #expect(response.status == status)
        #expect(response.bodyText.contains(#""error":"\#(error)""#))
    }

    @Test("a JSON body is refused: the client must send a form")
    func jsonRefused() async throws {
        let fake = try GoogleFixture.fakeWithGrant()
        defer { fake.stop() }
        let response = try await post(fake.tokenEndpoint, #"{"grant_type":"refresh_token"}"#, contentType: "application/json")
        #expect(response.status == 400 && response.bodyText.contains("invalid_request"))
    }

    @Test("revoke takes the token from the query too; other paths are 404 and not counted")
    func revokeQueryAndOtherPaths() async throws {
        let fake = try GoogleFixture.fakeWithGrant()
        defer { fake.stop() }
        let revoked = try await post(fake.revokeEndpoint + "?token=1%2F%2F0gRefresh%2Btoken%2Fwith%3Dodd%26chars%20%C3%BC", "")
        #expect(revoked.status == 200 && fake.revokedTokens == [GoogleFixture.refreshToken])
        let missing = try await post(fake.revokeEndpoint, "")
        #expect(missing.status == 400 && missing.bodyText.contains("invalid_request"))
        let elsewhere = try await post(String(fake.tokenEndpoint.dropLast("/token".count)) + "/tokeninfo", "")
        #expect(elsewhere.status == 404)
        #expect(fake.tokenCalls == 0 && fake.revokeCalls == 2 && fake.requests.count == 3)
    }
}
