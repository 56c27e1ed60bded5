import PayPulseDomain
import Testing

/// `PAYPULSE_AUTH_MODE=apigateway`: claims API Gateway's JWT authorizer already verified.
@Suite("API Gateway authorizer claims")
struct AuthorizerClaimsTests {
    private let claims = ["sub": "cognito-7f3a", "email": "ada@example.com", "name": "Ada", "exp": "1800000600", "iss": "https://cognito-idp.example"]

    @Test("apigateway: the claims are used without any header")
    func trusted() async throws {
        let user = try await AuthFixture.authenticator(mode: .apigateway)
            .authenticate(authorizationHeader: nil, authorizerClaims: claims, now: AuthFixture.now)
        #expect(user == AuthenticatedUser(userID: try #require(UserID("cognito-7f3a")), name: "Ada", email: "ada@example.com"))
    }

    @Test("apigateway: the claims win over a header (API Gateway verified them)")
    func claimsBeforeHeader() async throws {
        let token = try await AuthFixture.mint(subject: "user-1")
        let user = try await AuthFixture.authenticator(mode: .apigateway)
            .authenticate(authorizationHeader: "Bearer \(token)", authorizerClaims: claims, now: AuthFixture.now)
        #expect(user.userID.rawValue == "cognito-7f3a")
    }

    @Test("apigateway: sub is still required and must be a safe user id")
    func subjectStillChecked() async throws {
        let authenticator = try await AuthFixture.authenticator(mode: .apigateway)
        await expectRefused(authenticator, header: nil, claims: ["email": "a@b"], .missingSubject)
        for sub in ["a/b", "..", "", "x\u{0}", String(repeating: "a", count: 600)] {
            await expectRefused(authenticator, header: nil, claims: ["sub": sub], .unsafeSubject)
        }
    }

    /// The log names the real cause: the authorizer's claims are missing, whatever the
    /// Authorization header holds (it said "no Authorization header" beside one).
    @Test("apigateway, but no claims (a route deployed without the authorizer): 401 whatever the header holds, logged as missing claims")
    func noClaimsIsRefused() async throws {
        let authenticator = try await AuthFixture.authenticator(mode: .apigateway)
        let token = try await AuthFixture.mint(subject: "user-1")
        await expectRefused(authenticator, header: "Bearer \(token)", claims: nil, .missingAuthorizerClaims)
        await expectRefused(authenticator, header: "Bearer \(token)", claims: [:], .missingAuthorizerClaims)
        await expectRefused(authenticator, header: nil, .missingAuthorizerClaims)
        #expect(AuthenticationError.missingAuthorizerClaims.reason.contains("authorizer claims"))
    }

    @Test("hs256: the claims are ignored and the header is required")
    func untrusted() async throws {
        let authenticator = try await AuthFixture.authenticator(mode: .hs256)
        await expectRefused(authenticator, header: nil, claims: claims, .missingCredentials)
        await expectRefused(authenticator, header: "Bearer junk", claims: claims, .malformedToken)
        let token = try await AuthFixture.mint(subject: "user-1")
        let user = try await authenticator.authenticate(authorizationHeader: "Bearer \(token)", authorizerClaims: claims, now: AuthFixture.now)
        #expect(user.userID.rawValue == "user-1")
    }
}
