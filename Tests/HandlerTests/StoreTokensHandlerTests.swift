import Foundation
import PayPulseDomain
import PayPulseHandlers
import PayPulsePorts
import PayPulseTestSupport
import Testing

@Suite("store-tokens handler")
struct StoreTokensHandlerTests {
    @Test("first connection: verified at Google, 201 with the reference body, stored with tags")
    func firstConnection() async throws {
        let fixture = try await HandlerFixture()
        let response = await fixture.storeTokens.handle(try await fixture.post(json: """
            {"access_token":"ya29.first","refresh_token":"1//first","expires_in":3600,
             "scope":["\(gmailScope)","https://www.googleapis.com/auth/userinfo.email"],"email":"user@gmail.com"}
            """), logger: fixture.logs.logger)
        #expect(response.status == 201)
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.body == """
            {"data":{"account_switch":false,"google_email":"user@gmail.com","message":"First Gmail connection",\
            "scope":"\(gmailScope) https://www.googleapis.com/auth/userinfo.email openid"},"message":"Gmail OAuth tokens stored successfully!"}
            """)
        // Google's answer is stored: its access token and lifetime, the account's subject.
        let stored = try #require(try await fixture.vault.current(of: UserID("user-1")!))
        #expect(stored.tokenSet.accessToken == "ya29.google-1" && stored.tokenSet.refreshToken == "1//first")
        #expect(stored.tokenSet.expiresAt == HandlerFixture.now.addingTimeInterval(3599))
        #expect(stored.tokenSet.googleSubject == "110000000000000000001" && stored.tokenSet.verified)
        #expect(stored.tokenSet.verifiedAt == HandlerFixture.now && stored.tokenSet.version == 2)
        #expect(fixture.google.refreshes == ["1//first"])
        let tags = try await fixture.secrets.describeSecret(name: "gmail/user/user-1").tags
        #expect(tags["paypulse:expires-at"] == "1800003599" && tags["paypulse:status"] == "active" && tags["paypulse:verified"] == "true")
    }

    @Test("same account again: updated, refresh token kept; another account: switched")
    func updateAndSwitch() async throws {
        let fixture = try await HandlerFixture()
        _ = await fixture.storeTokens.handle(try await fixture.post(json: #"{"access_token":"a1","refresh_token":"r1","email":"a@gmail.com"}"#), logger: fixture.logs.logger)
        let update = await fixture.storeTokens.handle(try await fixture.post(json: #"{"access_token":"a2","email":"a@gmail.com"}"#), logger: fixture.logs.logger)
        #expect(update.status == 201)
        let updateData = try #require(try body(update)["data"] as? [String: Any])
        #expect(updateData["message"] as? String == "Gmail tokens updated" && updateData["account_switch"] as? Bool == false)
        #expect(try await fixture.vault.current(of: UserID("user-1")!)?.tokenSet.refreshToken == "r1")

        let change = await fixture.storeTokens.handle(try await fixture.post(json: #"{"access_token":"b1","email":"b@gmail.com"}"#), logger: fixture.logs.logger)
        let data = try #require(try body(change)["data"] as? [String: Any])
        #expect(data["message"] as? String == "Gmail account switched" && data["account_switch"] as? Bool == true)
        #expect(data["google_email"] as? String == "b@gmail.com")
        #expect(try await fixture.vault.current(of: UserID("user-1")!)?.tokenSet.isRefreshable == false)
    }

    @Test("form bodies: repeated scope keys or one space-separated value, charset allowed")
    func formBodies() async throws {
        let fixture = try await HandlerFixture()
        let encoded = gmailScope.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let repeated = await fixture.storeTokens.handle(try await fixture.post(
            json: "access_token=ya29.form&expires_in=1800&scope=\(encoded)&scope=openid&email=u%40gmail.com",
            contentType: "application/x-www-form-urlencoded; charset=UTF-8"
        ), logger: fixture.logs.logger)
        #expect(repeated.status == 201)
        #expect(try (body(repeated)["data"] as? [String: Any])?["scope"] as? String == "\(gmailScope) openid")
        let stored = try #require(try await fixture.vault.current(of: UserID("user-1")!))
        #expect(stored.tokenSet.expiresAt == HandlerFixture.now.addingTimeInterval(1800) && stored.tokenSet.googleEmail == "u@gmail.com")

        let joined = await fixture.storeTokens.handle(try await fixture.post(
            json: "access_token=ya29.form2&scope=openid+\(encoded)", contentType: "application/x-www-form-urlencoded"
        ), logger: fixture.logs.logger)
        #expect(joined.status == 201)
        #expect(try (body(joined)["data"] as? [String: Any])?["scope"] as? String == "openid \(gmailScope)")
    }

    @Test(
        "malformed bodies are 400 invalid_request and store nothing",
        arguments: [
            "", "not json", "[1,2]", "{}", #"{"access_token": 5}"#, #"{"access_token": ""}"#,
            #"{"access_token":"a","expires_in":"3600"}"#, #"{"access_token":"a","expires_in":0}"#,
            #"{"access_token":"a","expires_in":-5}"#, #"{"access_token":"a","expires_in":1.5}"#,
            #"{"access_token":"a","expires_in":86401}"#, #"{"access_token":"a","scope":{"x":1}}"#,
            #"{"access_token":"a","scope":[1]}"#, #"{"access_token":"a","email":"not-an-email"}"#,
            #"{"access_token":"a","refresh_token":true}"#, #"{"access_token":"a\u0000b"}"#,
        ]
    )
    func malformed(json: String) async throws {
        let fixture = try await HandlerFixture()
        let response = await fixture.storeTokens.handle(try await fixture.post(json: json), logger: fixture.logs.logger)
        #expect(response.status == 400)
        #expect(try errorCode(response) == "invalid_request")
        #expect(try !(body(response)["message"] as? String ?? "").isEmpty)
        #expect(await !fixture.secrets.calls.contains { $0 != "GetSecretValue" && $0 != "DescribeSecret" })
        #expect(await fixture.secrets.calls.isEmpty)
    }

    @Test(
        "an email hint that is no plausible address is 400 invalid_request and stores nothing",
        arguments: [
            // A Prepend scalar glued to "<" (one grapheme cluster), markup, bidi overrides,
            // zero-width and other format characters, several or no "@", empty parts.
            #"{"access_token":"a","email":"\u0600<svg/onload=alert(document.domain)//\u0600>@gmail.com"}"#,
            #"{"access_token":"a","email":"<b>jane</b>@gmail.com"}"#, #"{"access_token":"a","email":"jane\"x@gmail.com"}"#,
            #"{"access_token":"a","email":"jane`x@gmail.com"}"#, #"{"access_token":"a","email":"jane&amp@gmail.com"}"#,
            #"{"access_token":"a","email":"jane\u202Eevil@gmail.com"}"#, #"{"access_token":"a","email":"ja\u200Bne@gmail.com"}"#,
            #"{"access_token":"a","email":"jane@gmail.com\u2066"}"#, #"{"access_token":"a","email":"a@b@gmail.com"}"#,
            #"{"access_token":"a","email":"@gmail.com"}"#, #"{"access_token":"a","email":"jane@"}"#,
            #"{"access_token":"a","email":"jane@gmail..com"}"#, #"{"access_token":"a","email":"jane\u00A0x@gmail.com"}"#,
        ]
    )
    func implausibleEmail(json: String) async throws {
        let fixture = try await HandlerFixture()
        let response = await fixture.storeTokens.handle(try await fixture.post(json: json), logger: fixture.logs.logger)
        #expect(response.status == 400)
        #expect(try errorCode(response) == "invalid_request")
        #expect(await fixture.secrets.calls.isEmpty)
    }

    @Test("plausible addresses stay accepted, international ones included", arguments: ["jane.smith+pay@gmail.com", "o'brien@example.com", #"jos\u00e9@b\u00fccher.de"#, "j_o-e@sub.example.co.uk"])
    func plausibleEmail(email: String) async throws {
        let fixture = try await HandlerFixture()
        let response = await fixture.storeTokens.handle(
            try await fixture.post(json: #"{"access_token":"a","scope":["\#(gmailScope)"],"email":"\#(email)"}"#), logger: fixture.logs.logger
        )
        #expect(response.status == 201)
    }

    @Test("malformed form bodies are 400", arguments: ["access_token=a&expires_in=ten", "access_token=%zz", "expires_in=5"])
    func malformedForm(form: String) async throws {
        let fixture = try await HandlerFixture()
        let response = await fixture.storeTokens.handle(try await fixture.post(json: form, contentType: "application/x-www-form-urlencoded"), logger: fixture.logs.logger)
        #expect(response.status == 400)
        #expect(try errorCode(response) == "invalid_request")
    }

    @Test("a body over 64 KiB is 413; other media types are 415")
    func sizeAndType() async throws {
        let fixture = try await HandlerFixture()
        let big = #"{"access_token":""# + String(repeating: "a", count: 70_000) + #""}"#
        #expect(await fixture.storeTokens.handle(try await fixture.post(json: big), logger: fixture.logs.logger).status == 413)
        for type in ["text/plain", "application/xml", "application/json; charset=latin1", "multipart/form-data; boundary=x"] {
            let response = await fixture.storeTokens.handle(try await fixture.post(json: #"{"access_token":"a"}"#, contentType: type), logger: fixture.logs.logger)
            #expect(response.status == 415, "\(type)")
            #expect(try errorCode(response) == "unsupported_media_type")
        }
        #expect(await fixture.secrets.calls.isEmpty)
    }

    @Test("a missing content type is read as JSON")
    func noContentType() async throws {
        let fixture = try await HandlerFixture()
        #expect(await fixture.storeTokens.handle(try await fixture.post(json: #"{"access_token":"a"}"#, contentType: nil), logger: fixture.logs.logger).status == 201)
    }

    @Test("a grant Google says lacks a Gmail read scope is 403 missing_scope naming gmail.readonly, and stores nothing")
    func missingScope() async throws {
        let fixture = try await HandlerFixture()
        let response = await fixture.storeTokens.handle(try await fixture.post(json: #"{"access_token":"a","refresh_token":"r","scope":["openid"]}"#), logger: fixture.logs.logger)
        #expect(response.status == 403)
        #expect(try errorCode(response) == "missing_scope")
        #expect(response.body.contains(gmailScope))
        #expect(await fixture.secrets.calls.isEmpty)
    }

    @Test("wrong method is 405 with Allow; no or bad token is 401 with WWW-Authenticate; no store call")
    func methodAndAuth() async throws {
        let fixture = try await HandlerFixture()
        var request = try await fixture.post(json: #"{"access_token":"a"}"#)
        request.method = "PUT"
        let wrong = await fixture.storeTokens.handle(request, logger: fixture.logs.logger)
        #expect(wrong.status == 405 && wrong.headers["allow"] == "POST")

        for header in [nil, "Bearer nonsense", "Basic dXNlcjpwYXNz", "Bearer " + (try await fixture.token()) + "x"] {
            var request = try await fixture.post(json: #"{"access_token":"a"}"#)
            request.headers["authorization"] = header
            let response = await fixture.storeTokens.handle(request, logger: fixture.logs.logger)
            #expect(response.status == 401)
            #expect(response.headers["www-authenticate"] == "Bearer")
            #expect(try errorCode(response) == "unauthorized")
        }
        #expect(await fixture.secrets.calls.isEmpty)
    }

    @Test("store failures: unavailable is 503, a recurring conflict 409, anything else 500 with a generic message")
    func storeFailures() async throws {
        for (fault, status, code) in [(StoreError.unavailable, 503, "upstream_unavailable"), (.conflict, 409, "conflict"), (.accessDenied, 500, "internal_error"), (.corrupt, 500, "internal_error")] {
            let fixture = try await HandlerFixture()
            await fixture.secrets.setFault { _ in fault.with(message: "detail that must not reach the caller") }
            let response = await fixture.storeTokens.handle(try await fixture.post(json: #"{"access_token":"a"}"#), logger: fixture.logs.logger)
            #expect(response.status == status)
            #expect(try errorCode(response) == code)
            #expect(!response.body.contains("detail that must not reach the caller"))
            // A write whose answer was lost may have landed: its 503 never says nothing changed.
            #expect(!response.body.contains("nothing was changed"), "\(response.body)")
        }
    }

    @Test("no token, refresh token or JWT in any log line or response")
    func hygiene() async throws {
        let fixture = try await HandlerFixture()
        let jwt = try await fixture.token()
        let bodies = [
            #"{"access_token":"ya29.hygiene-access","refresh_token":"1//hygiene-refresh","scope":["\#(gmailScope)"]}"#,
            #"{"access_token":"ya29.hygiene-access","refresh_token":"1//hygiene-refresh","scope":["openid"]}"#,
            #"{"access_token":"ya29.hygiene-access","refresh_token":"1//hygiene-refresh","expires_in":"x"}"#,
        ]
        var responses: [String] = []
        for json in bodies {
            responses.append(await fixture.storeTokens.handle(try await fixture.post(json: json, token: jwt), logger: fixture.logs.logger).body)
        }
        responses.append(await fixture.storeTokens.handle(try await fixture.post(json: bodies[0], token: jwt + "tampered"), logger: fixture.logs.logger).body)
        let secrets = ["ya29.hygiene-access", "1//hygiene-refresh", jwt, String(jwt.split(separator: ".")[2])]
        #expect(fixture.logs.lines(containingAnyOf: secrets).isEmpty)
        #expect(responses.allSatisfy { body in !secrets.contains { body.contains($0) } })
        #expect(!fixture.logs.lines.isEmpty)
    }
}

@Suite("store-tokens body limits")
struct StoreTokensBodyLimitTests {
    @Test("repeated fields are refused in JSON and form bodies, and nothing is stored", arguments: [
        (#"{"access_token":"ya29.one","access_token":"ya29.two"}"#, "application/json", "The body repeats a key; send each field once."),
        ("access_token=ya29.one&access_token=ya29.two", "application/x-www-form-urlencoded",
         "The form body repeats a field; only scope may repeat."),
        ("access_token=ya29.one&email=a%40b.c&email=d%40e.f", "application/x-www-form-urlencoded",
         "The form body repeats a field; only scope may repeat."),
    ])
    func repeatedFields(text: String, contentType: String, message: String) async throws {
        let fixture = try await HandlerFixture()
        let response = await fixture.storeTokens.handle(try await fixture.post(json: text, contentType: contentType), logger: fixture.logs.logger)
        #expect(response.status == 400)
        #expect(try errorCode(response) == "invalid_request")
        #expect(try body(response)["message"] as? String == message)
        #expect(try await fixture.vault.current(of: UserID("user-1")!) == nil)
    }

    @Test("expires_in out of range, fractional, huge or not a number is a 400", arguments: [
        "-1", "0", "1.5", "86400.5", "1e308", "9223372036854775808", "-9223372036854775809", "1e400", #""3600""#, "true", "[3600]",
    ])
    func expiresIn(value: String) async throws {
        let fixture = try await HandlerFixture()
        let response = await fixture.storeTokens.handle(
            try await fixture.post(json: #"{"access_token":"ya29.x","expires_in":\#(value)}"#), logger: fixture.logs.logger
        )
        #expect(response.status == 400, "\(value)")
        #expect(try errorCode(response) == "invalid_request")
    }

    @Test("a body nested deeper than 32 levels is a 400")
    func deepNesting() async throws {
        let fixture = try await HandlerFixture()
        let deep = #"{"access_token":"ya29.x","extra":"# + String(repeating: "[", count: 60_000) + "}"
        let response = await fixture.storeTokens.handle(try await fixture.post(json: deep), logger: fixture.logs.logger)
        #expect(response.status == 400)
        #expect(try body(response)["message"] as? String == "The body nests deeper than 32 levels.")
    }
}
