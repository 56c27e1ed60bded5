import Foundation
import PayPulseDomain
import PayPulseGoogle
import PayPulsePorts
import PayPulseTestSupport
import PayPulseTransport
import Testing

@Suite("RISC management: the stream registered and managed at Google's API (the fake)")
struct RISCManagementTests {
    @Test("register sends the service account's RS256 token, which the fake and PyJWT both verify")
    func registerSignsTheToken() async throws {
        let risc = try RISCFixture()
        defer { risc.stop() }
        let before = Date().timeIntervalSince1970
        try await risc.client().updateStream(receiver: RISCFixture.receiver)

        let request = try #require(risc.fake.risc.requests.first)
        #expect(request.status == 200 && request.refusal == nil)
        #expect(risc.fake.risc.stream?.receiver == RISCFixture.receiver)
        let token = try #require(request.bearerToken)
        // Google's audience spelled out, not the client's constant, so PyJWT checks it too.
        let audience = "https://risc.googleapis.com/google.identity.risc.v1beta.RiscManagementService"
        let verified = try PyJWTVerifier.verify(token, publicKeyPEM: risc.account.publicKeyPEM, audience: audience)
        #expect(verified.header["alg"] as? String == "RS256")
        #expect(verified.header["typ"] as? String == "JWT")
        #expect(verified.header["kid"] as? String == risc.account.keyID)
        #expect(verified.claims["iss"] as? String == risc.account.email)
        #expect(verified.claims["sub"] as? String == risc.account.email)
        #expect(verified.claims["aud"] as? String == audience)
        let iat = try #require(verified.claims["iat"] as? Double), exp = try #require(verified.claims["exp"] as? Double)
        #expect(exp - iat == 3600)
        #expect(iat >= before.rounded(.down) && iat <= Date().timeIntervalSince1970)
    }

    @Test("the bodies are Google's shapes, byte for byte")
    func bodies() async throws {
        let risc = try RISCFixture()
        defer { risc.stop() }
        let client = try risc.client()
        try await client.updateStream(receiver: RISCFixture.receiver)
        _ = try await client.updateStatus(.disabled)
        try await client.verify(state: "check 1")
        _ = try await client.stream()
        _ = try await client.status()

        let requests = risc.fake.risc.requests
        #expect(requests.map { "\($0.method) \($0.call)" } == [
            "POST stream:update", "POST stream/status:update", "POST stream:verify", "GET stream", "GET stream/status",
        ])
        let risc1 = "https://schemas.openid.net/secevent/risc/event-type/", oauth = "https://schemas.openid.net/secevent/oauth/event-type/"
        let events = [
            risc1 + "sessions-revoked", risc1 + "account-disabled", risc1 + "account-enabled", risc1 + "account-credential-change-required",
            risc1 + "verification", oauth + "tokens-revoked", oauth + "token-revoked",
        ]
        let expected = #"{"delivery":{"delivery_method":"https://schemas.openid.net/secevent/risc/delivery-method/push","url":"\#(RISCFixture.receiver)"},"events_requested":["\#(events.joined(separator: #"",""#))"]}"#
        #expect(requests[0].body == expected)
        #expect(requests[1].body == #"{"status":"disabled"}"#)
        #expect(requests[2].body == #"{"state":"check 1"}"#)
        #expect(requests[3].body.isEmpty && requests[4].body.isEmpty)
        #expect(requests.prefix(3).allSatisfy { $0.contentType == "application/json" })
        #expect(requests.allSatisfy { $0.status == 200 })
    }

    @Test("show, status, disable, enable and verify round-trip through the fake")
    func roundTrip() async throws {
        let risc = try RISCFixture()
        defer { risc.stop() }
        let client = try risc.client()
        let notYet = await #expect(throws: RISCManagementError.self) { try await client.stream() }
        #expect(notYet?.httpStatus == 404 && notYet?.googleStatus == "NOT_FOUND")

        let chosen = ["tokens-revoked", "account-disabled", "https://schemas.openid.net/secevent/risc/event-type/account-purged"]
        try await client.updateStream(receiver: RISCFixture.receiver, events: chosen.compactMap(RISCEventType.uri(named:)))
        let stream = try await client.stream()
        #expect(stream.deliveryURL == RISCFixture.receiver)
        #expect(stream.deliveryMethod == RISCManagementClient.pushDeliveryMethod)
        #expect(stream.eventsRequested.map(RISCEventType.shortName) == ["tokens-revoked", "account-disabled", "account-purged"])
        #expect(stream.eventsDelivered.map(RISCEventType.shortName) == ["tokens-revoked", "account-disabled"], "account-purged is not in Google's list")
        #expect(stream.audience == risc.fake.clientIDs)

        #expect(try await client.status() == .enabled)
        #expect(try await client.updateStatus(.disabled) == .disabled)
        #expect(try await client.status() == .disabled && risc.fake.risc.status == "disabled")
        #expect(try await client.updateStatus(.enabled) == .enabled)
        #expect(try await client.status() == .enabled)
        try await client.verify(state: "paypulse-check-42")
        #expect(risc.fake.risc.verificationStates == ["paypulse-check-42"])
    }

    @Test("an account whose public key the test registers signs in like a generated one")
    func accountGivenByItsPublicKey() async throws {
        let risc = try RISCFixture()
        defer { risc.stop() }
        let second = try FakeGoogleServiceAccount.generate(email: "second@paypulse-fake.iam.gserviceaccount.com")
        risc.fake.risc.addServiceAccount(FakeGoogleServiceAccount(email: second.email, keyID: second.keyID, publicKeyPEM: second.publicKeyPEM))
        let key = try ServiceAccountKey(json: Array(try #require(second.keyFile).utf8), file: "second.json")
        let signingKey = try IssuerSigningKey(algorithm: .rs256, pemRepresentation: key.privateKey, id: key.privateKeyID)
        let client = RISCManagementClient(
            apiBase: risc.fake.riscAPIBase, serviceAccount: key.clientEmail, signer: RISCFixture.signer(signingKey), transport: CurlHTTPClient(),
            retry: .none, logger: LogCapture().logger
        )
        try await client.updateStream(receiver: RISCFixture.receiver)
        #expect(risc.fake.risc.requests.map(\.refusal) == [nil])
    }

    @Test("short names and full URIs name the event types; anything else names none")
    func eventNames() {
        #expect(RISCEventType.uri(named: "tokens-revoked") == "https://schemas.openid.net/secevent/oauth/event-type/tokens-revoked")
        #expect(RISCEventType.uri(named: "verification") == "https://schemas.openid.net/secevent/risc/event-type/verification")
        #expect(RISCEventType.uri(named: "https://example.com/type") == "https://example.com/type")
        #expect(RISCEventType.uri(named: "account-purged") == nil, "not in Google's list: give its URI")
        #expect(RISCEventType.uri(named: "token") == nil && RISCEventType.uri(named: "https://") == nil)
        #expect(RISCEventType.googleSupported.map(RISCEventType.shortName) == [
            "sessions-revoked", "account-disabled", "account-enabled", "account-credential-change-required", "verification", "tokens-revoked",
            "token-revoked",
        ])
    }

    /// A token the fake must refuse.
    enum Forgery: String, CaseIterable, Sendable {
        case otherKeyUnderTheAccountsKid = "signed with another key under the account's kid"
        case unknownKey = "signed with a key Google does not know"
        case otherAudience = "for another audience"
        case otherIssuer = "from another issuer"
        case expired = "expired"

        /// The fake's reason, naming the check that failed.
        var refusal: String {
            switch self {
            case .otherKeyUnderTheAccountsKid: "the signature does not verify under the key kid names"
            case .unknownKey: "kid names no key of a known service account"
            case .otherAudience: "aud is not the RISC management service"
            case .otherIssuer: "iss and sub are not the key's service account"
            case .expired: "expired"
            }
        }

        func client(_ risc: RISCFixture) throws -> RISCManagementClient {
            let other = try IssuerSigningKey.generate(.rs256)
            return switch self {
            case .otherKeyUnderTheAccountsKid:
                try risc.client(signer: RISCFixture.signer(try IssuerSigningKey(algorithm: .rs256, pemRepresentation: other.pemRepresentation, id: risc.account.keyID)))
            case .unknownKey: try risc.client(signer: RISCFixture.signer(other))
            case .otherAudience: try risc.client(signer: RISCFixture.signer(try risc.signingKey, audience: "https://risc.googleapis.com/"))
            case .otherIssuer: try risc.client(signer: RISCFixture.signer(try risc.signingKey, issuer: "someone@evil.example"))
            case .expired: try risc.client(now: { Date().addingTimeInterval(-3700) })
            }
        }
    }

    @Test("a token the fake cannot verify is refused with Google's 401, and nothing changes", arguments: Forgery.allCases)
    func forgedTokensRefused(_ forgery: Forgery) async throws {
        let risc = try RISCFixture()
        defer { risc.stop() }
        let client = try forgery.client(risc)
        let error = await #expect(throws: RISCManagementError.self) { try await client.updateStream(receiver: RISCFixture.receiver) }
        #expect(error?.httpStatus == 401 && error?.googleStatus == "UNAUTHENTICATED")
        #expect(error?.description.hasPrefix("Google answered 401 UNAUTHENTICATED: Request had invalid authentication credentials.") == true)
        #expect(risc.fake.risc.requests.map(\.refusal) == [forgery.refusal])
        #expect(risc.fake.risc.stream == nil)
    }

    @Test("an account without roles/riscconfigs.admin gets Google's 403, status and message in one line")
    func notPermitted() async throws {
        let risc = try RISCFixture(permitted: false)
        defer { risc.stop() }
        let error = await #expect(throws: RISCManagementError.self) { try await risc.client().status() }
        #expect(error?.description == "Google answered 403 PERMISSION_DENIED: The caller does not have permission")
    }

    @Test("a receiver Google would refuse is refused before any request", arguments: [
        "http://api.example.com/v1/google/security-events", "ftp://api.example.com/events", "https://", "https://user@api.example.com/events",
        "http://127.evil.example/events", "api.example.com/events",
    ])
    func receiverRefusedBeforeAsking(_ receiver: String) async throws {
        let risc = try RISCFixture()
        defer { risc.stop() }
        let error = await #expect(throws: RISCManagementError.self) { try await risc.client().updateStream(receiver: receiver) }
        #expect(error?.description.contains("https://") == true && error?.description.contains(receiver) == true)
        #expect(error?.httpStatus == nil)
        #expect(risc.fake.risc.requests.isEmpty)
    }

    @Test("a loopback http receiver is Google's refusal too when the API is not on loopback")
    func loopbackReceiverNeedsLoopbackAPI() async throws {
        let risc = try RISCFixture()
        defer { risc.stop() }
        // https on loopback is not the fake's plain-HTTP exception, and nothing listens there.
        let client = try risc.client(apiBase: "https://127.0.0.1:1/v1beta")
        let error = await #expect(throws: RISCManagementError.self) { try await client.updateStream(receiver: RISCFixture.receiver) }
        #expect(error?.httpStatus == nil && error?.description.hasPrefix("the receiver must be an https:// URL") == true)
    }

    @Test("the fake refuses a plain-HTTP receiver off loopback with 403, as Google does")
    func fakeRefusesPlainHTTP() async throws {
        let risc = try RISCFixture()
        defer { risc.stop() }
        let token = try RISCFixture.signer(try risc.signingKey)(
            ServiceAccountClaims(email: risc.account.email, audience: RISCManagementClient.audience, issuedAt: Date())
        )
        let body = #"{"delivery":{"delivery_method":"https://schemas.openid.net/secevent/risc/delivery-method/push","url":"http://api.example.com/events"},"events_requested":[]}"#
        let response = try await CurlHTTPClient().execute(HTTPRequest(
            method: "POST", url: risc.fake.riscAPIBase + "/stream:update",
            headers: ["Authorization": "Bearer " + token, "Content-Type": "application/json"], body: Array(body.utf8)
        ))
        #expect(response.status == 403)
        #expect(response.bodyText.contains(#""status":"PERMISSION_DENIED""#))
        #expect(risc.fake.risc.stream == nil)
    }

    @Test("a key file that is not a service account's is one line naming the file and the member, never the key")
    func badKeyFiles() throws {
        let risc = try RISCFixture()
        defer { risc.stop() }
        let complete = try risc.keyFileObject
        let privateKey = try #require(complete["private_key"] as? String)
        func variant(_ change: (inout [String: Any]) -> Void) throws -> String {
            var object = complete
            change(&object)
            return String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        }
        let cases: [(text: String, member: String?, says: String)] = [
            (try variant { $0["client_email"] = nil }, "client_email", #"is not a Google service-account key: "client_email" is missing"#),
            (try variant { $0["private_key"] = nil }, "private_key", #"is not a Google service-account key: "private_key" is missing"#),
            (try variant { $0["private_key_id"] = 42 }, "private_key_id", #""private_key_id" is not a non-empty string"#),
            (try variant { $0["type"] = "authorized_user" }, "type", #""type" is "authorized_user", not "service_account""#),
            (try variant { $0["type"] = privateKey }, "type", #""type" is something else, not "service_account""#),
            (String(privateKey.dropLast(20)), nil, "is not a JSON object"),
        ]
        // Any 24 characters of the key's body would show it leaked.
        let keyBody = privateKey.split(separator: "\n").dropFirst().dropLast().joined()
        for entry in cases {
            let file = try RISCFixture.write(entry.text)
            defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
            let error = #expect(throws: ServiceAccountKeyError.self) { try ServiceAccountKey(contentsOf: file.path) }
            let text = error?.description ?? ""
            #expect(text.hasPrefix(file.path + " ") && text.contains(entry.says), "\(text)")
            #expect(error?.member == entry.member)
            #expect(!text.contains("\n") && !text.contains("PRIVATE KEY"))
            #expect(!stride(from: 0, to: keyBody.count - 24, by: 24).contains { text.contains(keyBody.dropFirst($0).prefix(24)) })
        }
        let missing = #expect(throws: ServiceAccountKeyError.self) { try ServiceAccountKey(contentsOf: "/nonexistent/key.json") }
        #expect(missing?.description == "/nonexistent/key.json cannot be read")
    }

    @Test("the key's value prints as the account and key id, never the key")
    func keyNeverPrinted() throws {
        let risc = try RISCFixture()
        defer { risc.stop() }
        var dumped = ""
        dump(risc.key, to: &dumped)
        for text in ["\(risc.key)", String(reflecting: risc.key), dumped] {
            #expect(text.contains(risc.account.email) && !text.contains("PRIVATE KEY"), "\(text)")
        }
    }

    @Test("no log line and no error carries the token")
    func tokenNeverLogged() async throws {
        let risc = try RISCFixture()
        defer { risc.stop() }
        let logs = LogCapture()
        let client = try risc.client(logs: logs)
        try await client.updateStream(receiver: RISCFixture.receiver)
        let refused = try risc.client(now: { Date().addingTimeInterval(-7200) }, logs: logs)
        let error = await #expect(throws: RISCManagementError.self) { try await refused.status() }
        let tokens = risc.fake.risc.requests.compactMap(\.bearerToken)
        #expect(tokens.count == 2)
        #expect(logs.lines.contains { $0.contains("risc management call") && $0.contains("call=stream:update") && $0.contains("status=200") })
        #expect(logs.lines(containingAnyOf: tokens + ["Bearer"]).isEmpty)
        #expect(!tokens.contains { "\(String(describing: error))".contains($0) })
    }
}
