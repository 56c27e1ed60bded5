import PayPulseDomain
import PayPulseTestSupport
import Testing

@Suite("Authorization header")
struct BearerHeaderTests {
    @Test("a minted token is accepted, with its name and email")
    func validToken() async throws {
        let token = try await AuthFixture.mint()
        let user = try await AuthFixture.authenticator()
            .authenticate(authorizationHeader: "Bearer \(token)", authorizerClaims: nil, now: AuthFixture.now)
        #expect(user == AuthenticatedUser(userID: try #require(UserID("user-1")), name: "Ada", email: "ada@example.com"))
        #expect(user.userID.secretName == "gmail/user/user-1")
    }

    @Test("the scheme is case-insensitive", arguments: ["bearer", "BEARER", "BeArEr"])
    func schemeCase(scheme: String) async throws {
        let token = try await AuthFixture.mint()
        let user = try await AuthFixture.authenticator()
            .authenticate(authorizationHeader: "\(scheme) \(token)", authorizerClaims: nil, now: AuthFixture.now)
        #expect(user.userID.rawValue == "user-1")
    }

    @Test("no header is refused")
    func noHeader() async throws {
        let authenticator = try await AuthFixture.authenticator()
        await expectRefused(authenticator, header: nil, .missingCredentials)
        await expectRefused(authenticator, header: "", .missingCredentials)
        await expectRefused(authenticator, header: "   ", .missingCredentials)
    }

    @Test("other schemes are refused")
    func otherSchemes() async throws {
        let authenticator = try await AuthFixture.authenticator()
        let token = try await AuthFixture.mint()
        await expectRefused(authenticator, header: "Basic dXNlcjpwYXNzd29yZA==", .notBearer)
        await expectRefused(authenticator, header: "Token \(token)", .notBearer)
        await expectRefused(authenticator, header: token, .notBearer)
        await expectRefused(authenticator, header: "Bearer:\(token)", .notBearer)
    }

    @Test("Bearer with no token, or more than one, is refused")
    func tokenCount() async throws {
        let authenticator = try await AuthFixture.authenticator()
        let token = try await AuthFixture.mint()
        await expectRefused(authenticator, header: "Bearer", .malformedAuthorization)
        await expectRefused(authenticator, header: "Bearer ", .malformedAuthorization)
        await expectRefused(authenticator, header: "Bearer \(token) \(token)", .malformedAuthorization)
        await expectRefused(authenticator, header: "Bearer \(token) extra", .malformedAuthorization)
    }

    @Test("a token over 8 KiB is refused before parsing; a 7 KiB one is not")
    func tokenSize() async throws {
        let authenticator = try await AuthFixture.authenticator()
        let big = try await TokenForge.hmac(payload: TokenForge.payload(["pad": "\"\(String(repeating: "x", count: 5600))\""]))
        #expect(big.utf8.count > 7 * 1024 && big.utf8.count <= 8 * 1024)
        let user = try await authenticator.authenticate(authorizationHeader: "Bearer \(big)", authorizerClaims: nil, now: AuthFixture.now)
        #expect(user.userID.rawValue == "user-1")

        let huge = try await TokenForge.hmac(payload: TokenForge.payload(["pad": "\"\(String(repeating: "x", count: 9 * 1024))\""]))
        #expect(huge.utf8.count > 9 * 1024)
        await expectRefused(authenticator, header: "Bearer \(huge)", .tokenTooLarge)
        // Junk that is large is refused on size alone, whatever it is.
        await expectRefused(authenticator, header: "Bearer " + String(repeating: "A", count: 9 * 1024), .tokenTooLarge)
        await expectRefused(authenticator, header: String(repeating: "A", count: 1024 * 1024), .tokenTooLarge)
    }

    @Test("truncated or malformed tokens are refused")
    func truncated() async throws {
        let authenticator = try await AuthFixture.authenticator()
        let token = try await AuthFixture.mint()
        let segments = token.split(separator: ".").map(String.init)
        let variants = [
            String(token.dropLast()),
            String(token.dropLast(2)),
            String(token.dropLast(10)),
            String(token.prefix(token.count / 2)),
            segments[0] + "." + segments[1],
            segments[0] + "." + segments[1] + ".",
            segments[0],
            token + ".",
            token + "." + segments[2],
            "." + segments[1] + "." + segments[2],
            segments[0] + ".." + segments[2],
            token.replacing("-", with: "+"),
            segments[0] + "." + segments[1] + "=." + segments[2],
            "...",
            "a.b.c",
        ]
        for variant in variants where variant != token {
            await expectRefused(authenticator, header: "Bearer \(variant)")
        }
    }
}
