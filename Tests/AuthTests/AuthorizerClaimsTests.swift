import PayPulseDomain
import Testing

/// `PAYPULSE_TRUST_API_GATEWAY_AUTHORIZER`: claims API Gateway already verified.
@Suite("API Gateway authorizer claims")
struct AuthorizerClaimsTests {
    private let claims = ["sub": "cognito-7f3a", "email": "ada@example.com", "name": "Ada", "exp": "1800000600", "iss": "https://cognito-idp.example"]

    @Test("on: the claims are used without any header")
    func trusted() async throws {
        let user = try await AuthFixture.authenticator(trustAPIGatewayAuthorizer: true)
            .authenticate(authorizationHeader: nil, authorizerClaims: claims, now: AuthFixture.now)
        #expect(user == AuthenticatedUser(userID: try #require(UserID("cognito-7f3a")), name: "Ada", email: "ada@example.com"))
    }

    @Test("on: the claims win over a header (API Gateway verified them)")
    func claimsBeforeHeader() async throws {
        let token = try await AuthFixture.mint(subject: "user-1")
        let user = try await AuthFixture.authenticator(trustAPIGatewayAuthorizer: true)
            .authenticate(authorizationHeader: "Bearer \(token)", authorizerClaims: claims, now: AuthFixture.now)
        #expect(user.userID.rawValue == "cognito-7f3a")
    }

    @Test("on: sub is still required and must be a safe user id")
    func subjectStillChecked() async throws {
        let authenticator = try await AuthFixture.authenticator(trustAPIGatewayAuthorizer: true)
        await expectRefused(authenticator, header: nil, claims: ["email": "a@b"], .missingSubject)
        for sub in ["a/b", "..", "", "x\u{0}", String(repeating: "a", count: 600)] {
            await expectRefused(authenticator, header: nil, claims: ["sub": sub], .unsafeSubject)
        }
    }

    @Test("on, but no claims: the header is verified as usual")
    func noClaimsFallsBackToHeader() async throws {
        let authenticator = try await AuthFixture.authenticator(trustAPIGatewayAuthorizer: true)
        let token = try await AuthFixture.mint(subject: "user-1")
        let user = try await authenticator.authenticate(authorizationHeader: "Bearer \(token)", authorizerClaims: nil, now: AuthFixture.now)
        #expect(user.userID.rawValue == "user-1")
        await expectRefused(authenticator, header: nil, .missingCredentials)
        await expectRefused(authenticator, header: nil, claims: [:], .missingCredentials)
        await expectRefused(authenticator, header: "Bearer \(try await AuthFixture.mint(expiresIn: -61))", .expired)
    }

    @Test("off: the claims are ignored and the header is required")
    func untrusted() async throws {
        let authenticator = try await AuthFixture.authenticator(trustAPIGatewayAuthorizer: false)
        await expectRefused(authenticator, header: nil, claims: claims, .missingCredentials)
        await expectRefused(authenticator, header: "Bearer junk", claims: claims, .malformedToken)
        let token = try await AuthFixture.mint(subject: "user-1")
        let user = try await authenticator.authenticate(authorizationHeader: "Bearer \(token)", authorizerClaims: claims, now: AuthFixture.now)
        #expect(user.userID.rawValue == "user-1")
    }
}
