#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseDomain
import Testing

@Suite("DevelopmentTokenMinter")
struct DevelopmentTokenMinterTests {
    private struct Header: Decodable, Equatable {
        var alg: String
        var typ: String
    }

    private struct Claims: Decodable {
        var sub: String
        var iss: String
        var aud: String
        var iat: Double
        var exp: Double
        var name: String?
        var email: String?
    }

    private func decode<T: Decodable>(_ type: T.Type, segment: Substring) throws -> T {
        var base64 = String(segment).replacing("-", with: "+").replacing("_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return try JSONDecoder().decode(T.self, from: try #require(Data(base64Encoded: base64)))
    }

    @Test("mints an HS256 token with whole-second times and the configured iss/aud")
    func shape() async throws {
        let issued = AuthFixture.now.addingTimeInterval(0.75)
        let token = try await AuthFixture.minter().mint(
            subject: "user-1", name: "Ada", email: nil, issuedAt: issued, expiresAt: issued.addingTimeInterval(3600)
        )
        let segments = token.split(separator: ".")
        #expect(segments.count == 3)
        #expect(try decode(Header.self, segment: segments[0]) == Header(alg: "HS256", typ: "JWT"))
        let claims = try decode(Claims.self, segment: segments[1])
        #expect(claims.sub == "user-1")
        #expect(claims.iss == "paypulse")
        #expect(claims.aud == "paypulse-api")
        #expect(claims.iat == Double(AuthFixture.nowSeconds))
        #expect(claims.exp == Double(AuthFixture.nowSeconds + 3600))
        #expect(claims.name == "Ada")
        #expect(claims.email == nil)
    }

    @Test("a minted token round-trips through the authenticator")
    func roundTrip() async throws {
        let token = try await AuthFixture.minter().mint(
            subject: "x_y+z=w@example.com", name: nil, email: "e@example.com",
            issuedAt: AuthFixture.now, expiresAt: AuthFixture.now.addingTimeInterval(60)
        )
        let user = try await AuthFixture.authenticator()
            .authenticate(authorizationHeader: "Bearer \(token)", authorizerClaims: nil, now: AuthFixture.now)
        #expect(user == AuthenticatedUser(userID: try #require(UserID("x_y+z=w@example.com")), name: nil, email: "e@example.com"))
    }

    @Test("a token minted with the development key is refused by another key")
    func differentKeys() async throws {
        let devSettings = try AuthSettings(key: Array(AuthSettings.developmentKey.utf8))
        #expect(devSettings.usesDevelopmentKey)
        let token = try await DevelopmentTokenMinter(settings: devSettings)
            .mint(subject: "user-1", name: nil, email: nil, issuedAt: AuthFixture.now, expiresAt: AuthFixture.now.addingTimeInterval(60))
        await expectRefused(try await AuthFixture.authenticator(), header: "Bearer \(token)", .badSignature)
    }
}
