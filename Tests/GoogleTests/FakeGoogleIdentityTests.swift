import Foundation
import PayPulseTestSupport
import PayPulseTransport
import Testing

/// Raw HTTP against the fake: what it answers beyond a plain refresh, as Google does.
@Suite("the fake answers with identities and client refusals as Google does")
struct FakeGoogleIdentityTests {
    static let signIn = "openid https://www.googleapis.com/auth/userinfo.email https://www.googleapis.com/auth/gmail.readonly"

    private func refresh(_ fake: FakeGoogleServer, _ token: String, clientID: String? = nil) async throws -> HTTPResponse {
        let body = "client_id=\(clientID ?? fake.clientID)&grant_type=refresh_token&refresh_token=\(token)"
        return try await CurlHTTPClient().execute(HTTPRequest(
            method: "POST", url: fake.tokenEndpoint, headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Array(body.utf8)
        ))
    }

    private func json(_ response: HTTPResponse) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    private func claims(_ idToken: String) throws -> [String: Any] {
        let segments = idToken.split(separator: ".")
        try #require(segments.count == 3)
        var base64 = String(segments[1]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        let payload = try #require(Data(base64Encoded: base64))
        return try #require(JSONSerialization.jsonObject(with: payload) as? [String: Any])
    }

    @Test("an id_token comes with the answer only when the grant includes openid, with Google's claims")
    func idToken() async throws {
        let fake = try FakeGoogleServer()
        defer { fake.stop() }
        fake.addGrant(refreshToken: "r-openid", scope: Self.signIn, account: FakeGoogleAccount(subject: "109876543210987654321", email: "jane@gmail.com"))
        fake.addGrant(refreshToken: "r-plain")
        let answer = try json(try await refresh(fake, "r-openid"))
        let claims = try claims(try #require(answer["id_token"] as? String))
        #expect(claims["iss"] as? String == "https://accounts.google.com")
        #expect(claims["aud"] as? String == fake.clientID && claims["azp"] as? String == fake.clientID)
        #expect(claims["sub"] as? String == "109876543210987654321" && claims["email"] as? String == "jane@gmail.com")
        #expect(claims["email_verified"] as? Bool == true)
        let iat = try #require(claims["iat"] as? Int)
        #expect(claims["exp"] as? Int == iat + 3600)
        #expect(answer["scope"] as? String == Self.signIn && answer["expires_in"] as? Int == 3599)
        #expect(try json(try await refresh(fake, "r-plain"))["id_token"] == nil)
    }

    @Test("a renamed address keeps the subject; a default account is numbered")
    func rename() async throws {
        let fake = try FakeGoogleServer()
        defer { fake.stop() }
        fake.addGrant(refreshToken: "r", scope: Self.signIn)
        let before = try claims(try #require(try json(try await refresh(fake, "r"))["id_token"] as? String))
        fake.renameAccount(refreshToken: "r", email: "renamed@gmail.com")
        let after = try claims(try #require(try json(try await refresh(fake, "r"))["id_token"] as? String))
        #expect(before["sub"] as? String == fake.subject(for: "r") && after["sub"] as? String == before["sub"] as? String)
        #expect(after["email"] as? String == "renamed@gmail.com" && before["email"] as? String != "renamed@gmail.com")
    }

    @Test("a grant of another client: 401 unauthorized_client, or invalid_client \"Unauthorized\"")
    func foreign() async throws {
        let fake = try FakeGoogleServer()
        defer { fake.stop() }
        fake.addGrant(refreshToken: "r-debug", account: FakeGoogleAccount(issuedTo: "debug.apps.googleusercontent.com"))
        fake.addGrant(refreshToken: "r-other-app", account: FakeGoogleAccount(issuedTo: "other.apps.googleusercontent.com", foreignRefusal: .invalidClient))
        let unauthorized = try await refresh(fake, "r-debug")
        #expect(unauthorized.status == 401 && unauthorized.bodyText == #"{"error":"unauthorized_client","error_description":"Unauthorized"}"#)
        let invalid = try await refresh(fake, "r-other-app")
        #expect(invalid.status == 401 && invalid.bodyText == #"{"error":"invalid_client","error_description":"Unauthorized"}"#)
        #expect(fake.foreignRefreshTokens == ["r-debug", "r-other-app"])
    }

    @Test("a deleted client gets deleted_client for every token; a healthy one answers a probe invalid_grant")
    func deletedClient() async throws {
        let fake = try FakeGoogleServer()
        defer { fake.stop() }
        fake.addGrant(refreshToken: "r")
        let probe = try await refresh(fake, "no-such-token")
        #expect(probe.status == 400 && probe.bodyText.contains(#""error":"invalid_grant""#))
        fake.deleteClient()
        for token in ["r", "no-such-token"] {
            let refused = try await refresh(fake, token)
            #expect(refused.status == 401 && refused.bodyText == #"{"error":"deleted_client","error_description":"The OAuth client was deleted."}"#)
        }
        // A client ID Google never knew is still "not found", before anything else.
        #expect(try await refresh(fake, "r", clientID: "unknown.apps.googleusercontent.com").bodyText.contains("The OAuth client was not found."))
    }

    @Test("per-grant lifetime, and a user revoking access after a number of refreshes")
    func lifetimeAndLaterRevocation() async throws {
        let fake = try FakeGoogleServer()
        defer { fake.stop() }
        fake.addGrant(refreshToken: "r", account: FakeGoogleAccount(expiresIn: 300, refreshesBeforeRevocation: 1))
        #expect(try json(try await refresh(fake, "r"))["expires_in"] as? Int == 300)
        let later = try await refresh(fake, "r")
        #expect(later.status == 400 && later.bodyText.contains("invalid_grant") && fake.invalidGrantRefreshTokens == ["r"])
    }

    @Test("a grant Google cannot serve for its first refreshes gets 503, then answers")
    func unavailableAtFirst() async throws {
        let fake = try FakeGoogleServer()
        defer { fake.stop() }
        fake.addGrant(refreshToken: "r", account: FakeGoogleAccount(unavailableFor: 2))
        #expect(try await refresh(fake, "r").status == 503)
        #expect(try await refresh(fake, "r").status == 503)
        #expect(try await refresh(fake, "r").status == 200)
    }
}
