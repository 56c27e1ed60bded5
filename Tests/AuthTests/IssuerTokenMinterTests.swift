import Crypto
import Foundation
import JWTKit
import PayPulseDomain
import Testing

/// The local issuer's signer (`paypulse serve --issuer`, `paypulse jwt --alg`): RS256 and
/// ES256 tokens that this backend's `jwks` mode and an independent library (jwt-kit) accept
/// under the key set it publishes, with the HS256 minter's claims.
@Suite("IssuerTokenMinter")
struct IssuerTokenMinterTests {
    /// The fixture's RSA key (generating one is slow in a debug build) and a new P-256 key.
    private static let rsa = try! IssuerSigningKey(algorithm: .rs256, pemRepresentation: RSAFixture.privateKeyPEM)
    private static let ec = try! IssuerSigningKey.generate(.es256)

    private static func mint(_ key: IssuerSigningKey, issuer: String = TestIssuer.issuer) throws -> String {
        try IssuerTokenMinter(key: key, issuer: issuer, audience: TestIssuer.audience).mint(
            subject: "user-1", name: "Ada", email: "ada@example.com", issuedAt: AuthFixture.now, expiresAt: AuthFixture.now.addingTimeInterval(600)
        )
    }

    private static func segment(_ token: String, _ index: Int) throws -> [String: Any] {
        let text = String(token.split(separator: ".")[index])
        var base64 = text.replacing("-", with: "+").replacing("_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        let bytes = try #require(Data(base64Encoded: base64))
        return try #require(try JSONSerialization.jsonObject(with: bytes) as? [String: Any])
    }

    private static var keySet: String { get throws { String(decoding: try IssuerSigningKey.keySetDocument([rsa, ec]), as: UTF8.self) } }

    @Test("RS256 and ES256 tokens verify under the key set the keys publish, with sub, name and email")
    func verifiesHere() async throws {
        let authenticator = Authenticator(settings: try TestIssuer.settings(), issuerKeys: ScriptedKeySource(document: try Self.keySet))
        for key in [Self.rsa, Self.ec] {
            let user = try await authenticator.authenticate(authorizationHeader: "Bearer \(try Self.mint(key))", authorizerClaims: nil, now: AuthFixture.now)
            #expect(user.userID.rawValue == "user-1" && user.name == "Ada" && user.email == "ada@example.com", "\(key.algorithm)")
        }
        // Another issuer's URL, same key: refused for its iss, so the key alone proves nothing.
        await expectRefused(authenticator, header: "Bearer \(try Self.mint(Self.ec, issuer: "http://127.0.0.1:1"))", .wrongIssuer)
        // A key the set does not publish (same kid impossible: the kid is the key's thumbprint).
        let stranger = try IssuerSigningKey.generate(.es256)
        // Within the minute after the fetch it may be a key published since: 503; then the refetch says no.
        await expectRefused(authenticator, header: "Bearer \(try Self.mint(stranger))", .keysUnavailable)
        await expectRefused(authenticator, header: "Bearer \(try Self.mint(stranger))", .unknownKey, at: AuthFixture.now.addingTimeInterval(61))
    }

    @Test("jwt-kit verifies both tokens under the same key set: the signatures and the JWKs are the standard ones")
    func verifiesInJWTKit() async throws {
        struct Claims: JWTPayload {
            var sub: SubjectClaim
            var exp: ExpirationClaim
            func verify(using algorithm: some JWTAlgorithm) async throws {}
        }
        let keys = try await JWTKeyCollection().add(jwksJSON: try Self.keySet)
        for key in [Self.rsa, Self.ec] {
            let claims = try await keys.verify(try Self.mint(key), as: Claims.self)
            #expect(claims.sub.value == "user-1", "\(key.algorithm)")
        }
        // The signature's first character changed: it carries six bits of the signature, where
        // the last two characters may already read "AA" in the bits that count (1 in 256).
        let token = try Self.mint(Self.ec)
        let start = token.index(after: try #require(token.lastIndex(of: ".")))
        let tampered = token[..<start] + (token[start] == "A" ? "B" : "A") + token[token.index(after: start)...]
        await #expect(throws: (any Error).self) { _ = try await keys.verify(String(tampered), as: Claims.self) }
    }

    @Test("the header names the algorithm and the kid; the claims are the HS256 minter's, byte for byte")
    func headerAndClaims() async throws {
        let token = try Self.mint(Self.ec)
        let header = try Self.segment(token, 0)
        #expect(header["alg"] as? String == "ES256" && header["typ"] as? String == "JWT" && header["kid"] as? String == Self.ec.id)
        #expect(try Self.segment(try Self.mint(Self.rsa), 0)["alg"] as? String == "RS256")
        let settings = try AuthSettings(key: Array(AuthFixture.key.utf8), issuer: TestIssuer.issuer, audience: TestIssuer.audience)
        let shared = try DevelopmentTokenMinter(settings: settings).mint(
            subject: "user-1", name: "Ada", email: "ada@example.com", issuedAt: AuthFixture.now, expiresAt: AuthFixture.now.addingTimeInterval(600)
        )
        #expect(token.split(separator: ".")[1] == shared.split(separator: ".")[1])
    }

    @Test("a kid is the RFC 7638 thumbprint of the public key: kept through PEM, different for another key")
    func thumbprintKid() throws {
        for key in [Self.rsa, Self.ec] {
            let jwk = key.publicJWK
            // RFC 7638 §3.2: the required members only, in lexicographic order, no whitespace.
            let canonical = key.algorithm == .rs256
                ? #"{"e":"\#(jwk["e"] ?? "")","kty":"RSA","n":"\#(jwk["n"] ?? "")"}"#
                : #"{"crv":"P-256","kty":"EC","x":"\#(jwk["x"] ?? "")","y":"\#(jwk["y"] ?? "")"}"#
            #expect(key.id == TokenForge.base64URL(Array(SHA256.hash(data: Data(canonical.utf8)))), "\(key.algorithm)")
            #expect(try IssuerSigningKey(algorithm: key.algorithm, pemRepresentation: key.pemRepresentation).id == key.id)
        }
        #expect(try IssuerSigningKey.generate(.es256).id != Self.ec.id)
        #expect(throws: (any Error).self) { try IssuerSigningKey(algorithm: .rs256, pemRepresentation: Self.ec.pemRepresentation) }
    }
}
