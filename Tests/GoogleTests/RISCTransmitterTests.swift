import Foundation
import PayPulseGoogle
import PayPulseTestSupport
import PayPulseTransport
import Testing

/// The fake Google's RISC transmitter as a receiver meets it: the token's shape (checked by
/// PyJWT, an independent library), the push, redelivery until 202, a 400 as final, and the
/// stream's status and requested events deciding what is sent at all.
@Suite("RISC transmitter: the fake Google signs and pushes events as Google does")
struct RISCTransmitterTests {
    static let risc = "https://schemas.openid.net/secevent/risc/event-type/"
    static let oauth = "https://schemas.openid.net/secevent/oauth/event-type/"

    /// A receiver answering `statuses` in turn (the last one from then on).
    static func receiver(_ statuses: [Int]) throws -> ScriptedHTTPServer {
        try ScriptedHTTPServer { index, _ in .respond(status: statuses[min(index, statuses.count - 1)]) }
    }

    /// A fake whose transmitter waits only a few milliseconds between attempts.
    static func fake(attempts: Int = 3) throws -> FakeGoogleServer {
        let fake = try FakeGoogleServer()
        fake.risc.transmitter.redelivery = .init(attempts: attempts, backoff: .milliseconds(5))
        return fake
    }

    /// The token `request` carried, verified by PyJWT under the fake's key.
    static func verified(_ request: ScriptedHTTPServer.Request, by fake: FakeGoogleServer) throws -> PyJWTVerifier {
        try PyJWTVerifier.verify(
            String(decoding: request.body, as: UTF8.self), publicKeyPEM: try fake.risc.transmitter.publicKeyPEM(), audience: fake.clientID,
            require: ["iat", "iss", "jti", "events"]
        )
    }

    @Test("a token is Google's shape: RS256 under the published kid, iss the fake's, aud our client, a fresh jti; pushed as secevent+jwt")
    func shape() async throws {
        let fake = try Self.fake(), receiver = try Self.receiver([202])
        defer { fake.stop(); receiver.stop() }
        let before = Int(Date().timeIntervalSince1970)
        let first = await fake.risc.send(.init(.accountDisabled, subject: .account(sub: "110000000000000000042"), reason: "hijacking"), to: receiver.url + "/events")
        let second = await fake.risc.send(.init(.tokenRevoked, subject: .refreshToken("1//0gRevokedRefreshToken", algorithm: .hashBase64SHA512SHA512)), to: receiver.url + "/events")
        #expect(first.outcome == .delivered && first.attempts.map(\.status) == [202])
        #expect(second.outcome == .delivered && first.jti != second.jti)

        let requests = receiver.requests
        #expect(requests.map(\.method) == ["POST", "POST"] && requests.map(\.target) == ["/events", "/events"])
        #expect(requests.allSatisfy { $0.headers["content-type"] == "application/secevent+jwt" })
        let disabled = try Self.verified(requests[0], by: fake), revoked = try Self.verified(requests[1], by: fake)
        let keySet = try #require(try JSONSerialization.jsonObject(with: Data(try fake.risc.transmitter.keySet().utf8)) as? [String: [[String: String]]])
        #expect(disabled.header["alg"] as? String == "RS256" && disabled.header["kid"] as? String == keySet["keys"]?.first?["kid"])
        let issuer = try #require(fake.risc.transmitter.issuer)
        #expect(issuer == fake.tokenEndpoint.replacingOccurrences(of: "/token", with: "/"))
        #expect(disabled.claims["iss"] as? String == issuer && disabled.claims["jti"] as? String == first.jti)
        let iat = try #require(disabled.claims["iat"] as? Double)
        #expect(Int(iat) >= before && iat <= Date().timeIntervalSince1970)
        let events = try #require(disabled.claims["events"] as? [String: [String: Any]])
        let payload = try #require(events[Self.risc + "account-disabled"])
        #expect(payload["reason"] as? String == "hijacking")
        #expect(payload["subject"] as? [String: String] == ["subject_type": "iss-sub", "iss": issuer, "sub": "110000000000000000042"])

        // token-revoked names the refresh token by its identifier only: never in the clear.
        let revokedEvents = try #require(revoked.claims["events"] as? [String: [String: Any]])
        let subject = try #require(revokedEvents[Self.oauth + "token-revoked"]?["subject"] as? [String: String])
        #expect(subject["subject_type"] == "oauth_token" && subject["token_type"] == "refresh_token")
        #expect(subject["token_identifier_alg"] == "hash_base64_sha512_sha512")
        // The digest itself is checked where it matters: the receiver finds the grant by it
        // (RISCTransmitterReceiverTests), computing it apart from the fake.
        #expect(subject["token"]?.count == 88)
        #expect(!String(decoding: requests[1].body, as: UTF8.self).contains("RevokedRefresh"))
        #expect(FakeGoogleSecurityEvent.TokenIdentifierAlgorithm.prefix.identifier(of: "1//0gRevokedRefreshToken") == "1//0gRevokedRefr")
    }

    @Test("the receiver's discovery document names the transmitter's issuer and key set, unless a test published others")
    func discovery() async throws {
        let fake = try Self.fake()
        defer { fake.stop() }
        let transport = CurlHTTPClient()
        let document = try await transport.execute(HTTPRequest(method: "GET", url: fake.riscConfigurationURL))
        let fields = try #require(try JSONSerialization.jsonObject(with: Data(document.body)) as? [String: String])
        #expect(fields["issuer"] == fake.risc.transmitter.issuer)
        let keys = try await transport.execute(HTTPRequest(method: "GET", url: try #require(fields["jwks_uri"])))
        let keySet = try fake.risc.transmitter.keySet()
        #expect(keys.status == 200 && keys.bodyText == keySet)

        fake.publishRISCKeys(#"{"keys":[]}"#)
        let published = try await transport.execute(HTTPRequest(method: "GET", url: fake.riscConfigurationURL))
        #expect((try JSONSerialization.jsonObject(with: Data(published.body)) as? [String: String])?["issuer"] == "https://accounts.google.com/")
    }

    @Test("an event not accepted is sent again, the same token, until 202; after the last attempt it is lost")
    func redelivery() async throws {
        let fake = try Self.fake(attempts: 4), receiver = try Self.receiver([503, 500, 202]), down = try Self.receiver([503])
        defer { fake.stop(); receiver.stop(); down.stop() }
        let delivery = await fake.risc.send(.init(.tokensRevoked, subject: .account(sub: "110000000000000000043")), to: receiver.url)
        #expect(delivery.outcome == .delivered && delivery.attempts.map(\.status) == [503, 500, 202])
        #expect(Set(receiver.requests.map(\.body)).count == 1, "every attempt carries the same token, so the same jti")

        let lost = await fake.risc.send(.init(.tokensRevoked, subject: .account(sub: "110000000000000000043")), to: down.url)
        #expect(lost.outcome == .gaveUp && lost.attempts.map(\.status) == [503, 503, 503, 503] && down.requests.count == 4)
        #expect(fake.risc.deliveries.map(\.outcome) == [.delivered, .gaveUp])
    }

    @Test("a 400 is final: the refused token is not sent again")
    func refusedIsFinal() async throws {
        let fake = try Self.fake(attempts: 5), receiver = try Self.receiver([400, 202])
        defer { fake.stop(); receiver.stop() }
        let delivery = await fake.risc.send(.init(.accountEnabled, subject: .account(sub: "110000000000000000044")), to: receiver.url)
        #expect(delivery.outcome == .refused && delivery.attempts.map(\.status) == [400])
        #expect(receiver.requests.count == 1)
    }

    @Test("the stream decides: its receiver gets the types it asked for; while disabled nothing is sent, nor kept for later")
    func streamStatus() async throws {
        let fixture = try RISCFixture(), receiver = try Self.receiver([202])
        defer { fixture.stop(); receiver.stop() }
        fixture.fake.risc.transmitter.redelivery = .init(attempts: 2, backoff: .milliseconds(5))
        let client = try fixture.client()
        try await client.updateStream(receiver: receiver.url + "/v1/google/security-events", events: [Self.oauth + "tokens-revoked"])
        let revoked = FakeGoogleSecurityEvent(.tokensRevoked, subject: .account(sub: "110000000000000000045"))

        #expect(await fixture.fake.risc.send(revoked).outcome == .delivered)
        #expect(await fixture.fake.risc.send(.init(.accountDisabled, subject: .account(sub: "110000000000000000045"))).outcome == .notRequested)
        #expect(receiver.requests.map(\.target) == ["/v1/google/security-events"])

        _ = try await client.updateStatus(.disabled)
        #expect(await fixture.fake.risc.send(revoked).outcome == .streamDisabled)
        #expect(await fixture.fake.risc.send(revoked, to: receiver.url).outcome == .streamDisabled, "a disabled stream sends nowhere")
        _ = try await client.updateStatus(.enabled)
        #expect(receiver.requests.count == 1, "what came while disabled is not delivered on enabling")
        #expect(fixture.fake.risc.deliveries.map(\.outcome) == [.delivered, .notRequested, .streamDisabled, .streamDisabled])
    }

    @Test("stream:verify pushes a verification event carrying the state to the stream's receiver")
    func verify() async throws {
        let fixture = try RISCFixture(), receiver = try Self.receiver([202])
        defer { fixture.stop(); receiver.stop() }
        let client = try fixture.client()
        try await client.updateStream(receiver: receiver.url + "/events", events: [Self.oauth + "tokens-revoked"])
        try await client.verify(state: "state-7f3a")
        await fixture.fake.risc.settle()

        #expect(fixture.fake.risc.deliveries.map(\.outcome) == [.delivered] && fixture.fake.risc.deliveries.first?.type == .verification)
        let request = try #require(receiver.requests.first)
        let events = try #require(try Self.verified(request, by: fixture.fake).claims["events"] as? [String: [String: String]])
        #expect(events == [Self.risc + "verification": ["state": "state-7f3a"]])
    }
}
