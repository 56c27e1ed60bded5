import JWTKit
import PayPulseDomain
import Testing

/// Header attacks: `alg: none`, other algorithms, HS/RS confusion, key-selection parameters.
@Suite("Token header attacks")
struct TokenHeaderAttackTests {
    @Test("the forge's own token with the standard header is accepted (control)")
    func control() async throws {
        let token = try await TokenForge.hmac()
        let user = try await AuthFixture.authenticator()
            .authenticate(authorizationHeader: "Bearer \(token)", authorizerClaims: nil, now: AuthFixture.now)
        #expect(user.userID.rawValue == "user-1")
        // typ may be absent.
        let noTyp = try await TokenForge.hmac(header: #"{"alg":"HS256"}"#)
        _ = try await AuthFixture.authenticator()
            .authenticate(authorizationHeader: "Bearer \(noTyp)", authorizerClaims: nil, now: AuthFixture.now)
    }

    @Test("alg none is refused, with or without a signature", arguments: ["none", "None", "NONE", "nOnE"])
    func algNone(alg: String) async throws {
        let authenticator = try await AuthFixture.authenticator()
        let header = #"{"alg":"\#(alg)","typ":"JWT"}"#
        await expectRefused(authenticator, header: "Bearer \(TokenForge.unsigned(header: header))", .malformedToken)
        await expectRefused(authenticator, header: "Bearer \(TokenForge.unsigned(header: header, signature: "c2ln"))", .algorithmNotAllowed)
        // Even with a valid HS256 MAC over it, the header pins the algorithm.
        await expectRefused(authenticator, header: "Bearer \(try await TokenForge.hmac(header: header))", .algorithmNotAllowed)
    }

    @Test("HS384 and HS512 are refused, even signed with our key")
    func otherHMAC() async throws {
        let authenticator = try await AuthFixture.authenticator()
        let hs384 = try await TokenForge.hmac(header: #"{"alg":"HS384","typ":"JWT"}"#, digest: .sha384)
        let hs512 = try await TokenForge.hmac(header: #"{"alg":"HS512","typ":"JWT"}"#, digest: .sha512)
        await expectRefused(authenticator, header: "Bearer \(hs384)", .algorithmNotAllowed)
        await expectRefused(authenticator, header: "Bearer \(hs512)", .algorithmNotAllowed)
        // A header naming another algorithm over a genuine HS256 MAC.
        let relabelled = try await TokenForge.hmac(header: #"{"alg":"HS512","typ":"JWT"}"#)
        await expectRefused(authenticator, header: "Bearer \(relabelled)", .algorithmNotAllowed)
    }

    @Test("odd spellings and types of alg are refused", arguments: [
        #"{"alg":"hs256"}"#, #"{"alg":"HS256 "}"#, #"{"alg":"ES256"}"#, #"{"alg":"PS256"}"#, #"{"alg":"EdDSA"}"#,
        #"{"alg":256}"#, #"{"alg":["HS256"]}"#, #"{"alg":null}"#, #"{"typ":"JWT"}"#, #"{}"#,
    ])
    func oddAlg(header: String) async throws {
        await expectRefused(try await AuthFixture.authenticator(), header: "Bearer \(try await TokenForge.hmac(header: header))", .algorithmNotAllowed)
    }

    @Test("a header that is not a JSON object is refused", arguments: ["[]", "\"HS256\"", "{", "alg=HS256", "null"])
    func notJSON(header: String) async throws {
        await expectRefused(try await AuthFixture.authenticator(), header: "Bearer \(try await TokenForge.hmac(header: header))", .malformedHeader)
    }

    @Test("an RS256 token is refused")
    func rs256() async throws {
        let authenticator = try await AuthFixture.authenticator()
        await expectRefused(authenticator, header: "Bearer \(try await TokenForge.rs256())", .algorithmNotAllowed)
        // RS256 header over our HS256 MAC: still refused by the pin.
        let confused = try await TokenForge.hmac(header: #"{"alg":"RS256","typ":"JWT"}"#)
        await expectRefused(authenticator, header: "Bearer \(confused)", .algorithmNotAllowed)
    }

    @Test("HS256 with an RSA public key as the HMAC secret is refused (key confusion)")
    func publicKeyAsHMACSecret() async throws {
        let authenticator = try await AuthFixture.authenticator()
        let forged = try await TokenForge.hmac(key: RSAFixture.publicKeyPEM)
        await expectRefused(authenticator, header: "Bearer \(forged)", .badSignature)
        let wrongKey = try await TokenForge.hmac(key: "another-key-that-is-long-enough-0123456789")
        await expectRefused(authenticator, header: "Bearer \(wrongKey)", .badSignature)
        let devKey = try await TokenForge.hmac(key: AuthSettings.developmentKey)
        await expectRefused(authenticator, header: "Bearer \(devKey)", .badSignature)
    }

    @Test("key-selection and unknown header parameters are refused, even with a valid MAC", arguments: [
        #"{"alg":"HS256","typ":"JWT","kid":"default"}"#,
        #"{"alg":"HS256","typ":"JWT","kid":"../../../../dev/null"}"#,
        #"{"alg":"HS256","typ":"JWT","kid":"' OR '1'='1"}"#,
        #"{"alg":"HS256","typ":"JWT","kid":""}"#,
        #"{"alg":"HS256","jku":"https://attacker.example/jwks.json"}"#,
        #"{"alg":"HS256","x5u":"https://attacker.example/cert.pem"}"#,
        #"{"alg":"HS256","jwk":{"kty":"oct","k":"YXR0YWNrZXI"}}"#,
        #"{"alg":"HS256","x5c":["MIIB"]}"#,
        #"{"alg":"HS256","crit":["exp"]}"#,
        #"{"alg":"HS256","b64":false,"crit":["b64"]}"#,
        #"{"alg":"HS256","typ":"at+jwt"}"#,
        #"{"alg":"HS256","typ":7}"#,
    ])
    func headerParameters(header: String) async throws {
        let token = try await TokenForge.hmac(header: header)
        await expectRefused(try await AuthFixture.authenticator(), header: "Bearer \(token)", .unexpectedHeaderParameter)
    }

    @Test("a kid pointing at an attacker's HMAC key is refused")
    func kidWithAttackerKey() async throws {
        let token = try await TokenForge.hmac(header: #"{"alg":"HS256","kid":"attacker"}"#, key: "attacker-chosen-secret-0123456789-abcdef")
        await expectRefused(try await AuthFixture.authenticator(), header: "Bearer \(token)", .unexpectedHeaderParameter)
    }

    @Test("a tampered payload is refused")
    func tamperedPayload() async throws {
        let token = try await AuthFixture.mint(subject: "user-1")
        let parts = token.split(separator: ".").map(String.init)
        let other = TokenForge.base64URL(TokenForge.payload(["sub": #""user-2""#]))
        await expectRefused(try await AuthFixture.authenticator(), header: "Bearer \(parts[0]).\(other).\(parts[2])", .badSignature)
    }
}
