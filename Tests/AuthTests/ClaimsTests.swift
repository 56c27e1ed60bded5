#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseDomain
import Testing

/// Payload claims: iss, aud, exp, nbf, sub, name, email.
@Suite("Token claims")
struct ClaimsTests {
    @Test("a wrong or missing iss is refused")
    func issuer() async throws {
        try await expectRefusedPayload(TokenForge.payload(["iss": #""someone-else""#]), .wrongIssuer)
        try await expectRefusedPayload(TokenForge.payload(["iss": #""PayPulse""#]), .wrongIssuer)
        try await expectRefusedPayload(TokenForge.payload(["iss": nil]), .wrongIssuer)
        try await expectRefusedPayload(TokenForge.payload(["iss": "42"]), .malformedClaims)
    }

    @Test("aud must contain the configured audience")
    func audience() async throws {
        try await expectRefusedPayload(TokenForge.payload(["aud": nil]), .wrongAudience)
        try await expectRefusedPayload(TokenForge.payload(["aud": #""other-api""#]), .wrongAudience)
        try await expectRefusedPayload(TokenForge.payload(["aud": "[]"]), .wrongAudience)
        try await expectRefusedPayload(TokenForge.payload(["aud": #"["other-api"]"#]), .wrongAudience)
        try await expectRefusedPayload(TokenForge.payload(["aud": "7"]), .malformedClaims)
        // Only under jwks may client_id stand for a missing aud (Cognito's access tokens).
        try await expectRefusedPayload(TokenForge.payload(["aud": nil, "client_id": #""paypulse-api""#]), .wrongAudience)
        let user = try await acceptedPayload(TokenForge.payload(["aud": #"["other-api","paypulse-api"]"#]))
        #expect(user.userID.rawValue == "user-1")
    }

    @Test("exp: past by 30 s is within the leeway, by 61 s is not")
    func expiry() async throws {
        let authenticator = try await AuthFixture.authenticator()
        let recent = try await AuthFixture.mint(expiresIn: -30)
        let user = try await authenticator.authenticate(authorizationHeader: "Bearer \(recent)", authorizerClaims: nil, now: AuthFixture.now)
        #expect(user.userID.rawValue == "user-1")
        await expectRefused(authenticator, header: "Bearer \(try await AuthFixture.mint(expiresIn: -61))", .expired)
        await expectRefused(authenticator, header: "Bearer \(try await AuthFixture.mint(expiresIn: -60))", .expired)
        await expectRefused(authenticator, header: "Bearer \(try await AuthFixture.mint(expiresIn: -86_400))", .expired)
    }

    @Test("exp is compared in whole seconds: a fraction of now does not help")
    func expiryWholeSeconds() async throws {
        let authenticator = try await AuthFixture.authenticator()
        let token = try await AuthFixture.mint(expiresIn: -59)
        let almost = AuthFixture.now.addingTimeInterval(0.9)
        _ = try await authenticator.authenticate(authorizationHeader: "Bearer \(token)", authorizerClaims: nil, now: almost)
        await #expect(throws: AuthenticationError.expired) {
            try await authenticator.authenticate(authorizationHeader: "Bearer \(token)", authorizerClaims: nil, now: AuthFixture.now.addingTimeInterval(1))
        }
    }

    @Test("exp is required and must be a number")
    func expiryRequired() async throws {
        try await expectRefusedPayload(TokenForge.payload(["exp": nil]), .missingExpiry)
        try await expectRefusedPayload(TokenForge.payload(["exp": #""1900000000""#]), .malformedClaims)
    }

    @Test("nbf: ahead by 30 s is within the leeway, by 61 s is not")
    func notBefore() async throws {
        let user = try await acceptedPayload(TokenForge.payload(["nbf": "\(AuthFixture.nowSeconds + 30)"]))
        #expect(user.userID.rawValue == "user-1")
        _ = try await acceptedPayload(TokenForge.payload(["nbf": "\(AuthFixture.nowSeconds + 60)"]))
        try await expectRefusedPayload(TokenForge.payload(["nbf": "\(AuthFixture.nowSeconds + 61)"]), .notYetValid)
        try await expectRefusedPayload(TokenForge.payload(["nbf": "\(AuthFixture.nowSeconds + 86_400)"]), .notYetValid)
    }

    @Test("a leeway raised after init is clamped to 60 s")
    func leewayClamped() async throws {
        var settings = try AuthFixture.settings()
        settings.leeway = 3600
        let authenticator = Authenticator(settings: settings)
        await expectRefused(authenticator, header: "Bearer \(try await AuthFixture.mint(expiresIn: -61))", .expired)
    }

    @Test("a smaller leeway is honoured")
    func smallerLeeway() async throws {
        let authenticator = try Authenticator(settings: AuthSettings(key: Array(AuthFixture.key.utf8), leeway: 0))
        await expectRefused(authenticator, header: "Bearer \(try await AuthFixture.mint(expiresIn: -30))", .expired)
        await expectRefused(authenticator, header: "Bearer \(try await AuthFixture.mint(expiresIn: 0))", .expired)
        _ = try await authenticator.authenticate(
            authorizationHeader: "Bearer \(try await AuthFixture.mint(expiresIn: 1))", authorizerClaims: nil, now: AuthFixture.now
        )
    }

    @Test("a missing or null sub is refused")
    func missingSubject() async throws {
        try await expectRefusedPayload(TokenForge.payload(["sub": nil]), .missingSubject)
        try await expectRefusedPayload(TokenForge.payload(["sub": "null"]), .missingSubject)
    }

    @Test("a sub that is not a string is refused", arguments: ["42", "4.2", "true", #"["user-1"]"#, #"{"id":"user-1"}"#])
    func nonStringSubject(sub: String) async throws {
        try await expectRefusedPayload(TokenForge.payload(["sub": sub]), .subjectNotString)
    }

    @Test("an unsafe sub is refused before anything uses it", arguments: [
        "a/b", "../other", "gmail/user/other", "..", ".", "", "user\u{0}1", "\u{0}", "usér", "a b",
        String(repeating: "a", count: 600), String(repeating: "a", count: 129),
    ])
    func unsafeSubject(sub: String) async throws {
        let token = try await AuthFixture.mint(subject: sub)
        await expectRefused(try await AuthFixture.authenticator(), header: "Bearer \(token)", .unsafeSubject)
    }

    @Test("name and email are kept only when they are strings")
    func profileClaims() async throws {
        let user = try await acceptedPayload(TokenForge.payload(["name": "42", "email": #"["a@b"]"#]))
        #expect(user.name == nil)
        #expect(user.email == nil)
        let named = try await acceptedPayload(TokenForge.payload(["name": #""Grace""#, "email": #""grace@example.com""#]))
        #expect(named.name == "Grace")
        #expect(named.email == "grace@example.com")
    }

    @Test("a payload that is not a JSON object is refused", arguments: ["[]", "\"sub\"", "{", "42"])
    func payloadNotObject(payload: String) async throws {
        try await expectRefusedPayload(payload, .malformedClaims)
    }

    @Test("issuer and audience follow the settings")
    func customIssuerAudience() async throws {
        let settings = try AuthSettings(key: Array(AuthFixture.key.utf8), issuer: "iss-x", audience: "aud-y")
        let authenticator = Authenticator(settings: settings)
        let token = try DevelopmentTokenMinter(settings: settings)
            .mint(subject: "user-1", name: nil, email: nil, issuedAt: AuthFixture.now, expiresAt: AuthFixture.now.addingTimeInterval(60))
        _ = try await authenticator.authenticate(authorizationHeader: "Bearer \(token)", authorizerClaims: nil, now: AuthFixture.now)
        // The default-settings token carries iss paypulse: refused here.
        await expectRefused(authenticator, header: "Bearer \(try await AuthFixture.mint())", .wrongIssuer)
    }
}
