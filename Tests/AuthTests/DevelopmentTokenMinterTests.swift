#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JWTKit
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
        let token = try DevelopmentTokenMinter(settings: devSettings)
            .mint(subject: "user-1", name: nil, email: nil, issuedAt: AuthFixture.now, expiresAt: AuthFixture.now.addingTimeInterval(60))
        await expectRefused(try await AuthFixture.authenticator(), header: "Bearer \(token)", .badSignature)
    }

    /// Another implementation agrees: jwt-kit verifies what the minter signs.
    private struct JWTKitClaims: JWTPayload {
        var sub: SubjectClaim
        var iss: IssuerClaim
        var aud: AudienceClaim
        var exp: ExpirationClaim
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    @Test("jwt-kit verifies a minted token and reads the same claims; a flipped bit fails it")
    func jwtKitAgrees() async throws {
        let token = try await AuthFixture.minter().mint(
            subject: "user-1", name: nil, email: nil, issuedAt: AuthFixture.now, expiresAt: AuthFixture.now.addingTimeInterval(60)
        )
        let keys = await JWTKeyCollection().add(hmac: HMACKey(from: Array(AuthFixture.key.utf8)), digestAlgorithm: .sha256)
        let claims = try await keys.verify(token, as: JWTKitClaims.self)
        #expect(claims.sub.value == "user-1")
        #expect(claims.iss.value == "paypulse")
        #expect(claims.aud.value == ["paypulse-api"])
        #expect(claims.exp.value == AuthFixture.now.addingTimeInterval(60))
        var tampered = Array(token.utf8)
        tampered[tampered.count - 2] = tampered[tampered.count - 2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        await #expect(throws: (any Error).self) { try await keys.verify(String(decoding: tampered, as: UTF8.self), as: JWTKitClaims.self) }
    }
}
