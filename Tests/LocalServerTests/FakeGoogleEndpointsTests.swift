import Foundation
import PayPulseFakeGoogle
import Testing

@Suite("Google's stand-in mounted on paypulse serve")
struct FakeGoogleEndpointsTests {
    private let form = ["content-type": "application/x-www-form-urlencoded"]

    private func refresh(_ google: FakeGoogleEndpoints, token: String, client: String? = nil) -> FakeGoogleEndpoints.Answer {
        let body = "grant_type=refresh_token&client_id=\(client ?? google.clientIDs[0])&refresh_token=\(token)"
        return google.answer(method: "POST", target: "/token", headers: form, body: Array(body.utf8))
    }

    @Test("Google's rules: a known grant refreshes with an id_token, an unknown one is invalid_grant, another client is refused")
    func rules() throws {
        let google = FakeGoogleEndpoints(clientIDs: ["local.apps.googleusercontent.com"])
        google.addGrant(FakeGoogleGrantSpec(refreshToken: "1//known", account: FakeGoogleAccount(subject: "1234", email: "a@gmail.com")))

        let ok = refresh(google, token: "1//known")
        #expect(ok.status == 200)
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(ok.body.utf8)) as? [String: Any])
        #expect(answer["id_token"] is String && answer["scope"] as? String == FakeGoogleGrantSpec.signInWithGmailScope)

        let unknown = refresh(google, token: "1//unknown")
        #expect(unknown.status == 400 && unknown.body.contains("invalid_grant"))
        #expect(google.invalidGrantRefreshTokens == ["1//unknown"])
        #expect(refresh(google, token: "1//known", client: "other").status == 401)

        let revoked = google.answer(method: "POST", target: "/revoke?token=1//known", headers: [:], body: [])
        #expect(revoked.status == 200)
        #expect(refresh(google, token: "1//known").body.contains("invalid_grant"))
        #expect(google.answer(method: "GET", target: "/token", headers: [:], body: []).status == 405)
        #expect(google.answer(method: "POST", target: "/elsewhere", headers: [:], body: []).status == 404)
    }

    @Test("grant files: a list, a manifest with google_grants, or one grant; a grant without a refresh token is refused")
    func grantFiles() throws {
        let list = try FakeGoogleGrantSpec.list(fromJSON: Data(#"[{"refresh_token":"1//a"},{"refresh_token":"1//b","scope":"openid"}]"#.utf8))
        #expect(list.map(\.refreshToken) == ["1//a", "1//b"] && list[1].scope == "openid")
        let manifest = try FakeGoogleGrantSpec.list(fromJSON: Data(
            #"{"user":{},"google_grants":[{"refresh_token":"1//m","sub":"9","email":"m@gmail.com","issued_to":"x","expires_in":60,"unavailable_for":2}]}"#.utf8
        ))
        #expect(manifest.first?.account == FakeGoogleAccount(subject: "9", email: "m@gmail.com", issuedTo: "x", expiresIn: 60, unavailableFor: 2))
        #expect(try FakeGoogleGrantSpec.list(fromJSON: Data(#"{"refresh_token":"1//one"}"#.utf8)).count == 1)
        #expect(throws: DecodingError.self) { try FakeGoogleGrantSpec.list(fromJSON: Data(#"{"refresh_token":""}"#.utf8)) }
        #expect(throws: DecodingError.self) { try FakeGoogleGrantSpec.list(fromJSON: Data(#"{"scope":"openid"}"#.utf8)) }
    }
}
