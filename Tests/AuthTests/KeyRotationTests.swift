#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseDomain
import Testing

/// An HS256 key list (`{"keys": ["new", "old"]}`): tokens of either key pass while the
/// issuer moves to the new one, and the list's own minter signs with the first.
@Suite("HS256 key rotation")
struct KeyRotationTests {
    private let newKey = Array("rotation-new-key-0123456789-abcdefghijklmnop".utf8)
    private let oldKey = Array("rotation-old-key-0123456789-abcdefghijklmnop".utf8)
    private let otherKey = Array("rotation-other-key-0123456789-abcdefghijklm".utf8)

    private func token(_ key: [UInt8], subject: String = "user-1") throws -> String {
        try DevelopmentTokenMinter(settings: AuthSettings(key: key)).mint(
            subject: subject, name: nil, email: nil, issuedAt: AuthFixture.now.addingTimeInterval(-60), expiresAt: AuthFixture.now.addingTimeInterval(600)
        )
    }

    @Test("a token of the new key and one of the old key both verify; a third key's does not")
    func eitherKeyVerifies() async throws {
        let authenticator = Authenticator(settings: try AuthSettings(keys: [newKey, oldKey]))
        for (key, subject) in [(newKey, "signed-new"), (oldKey, "signed-old")] {
            let user = try await authenticator.authenticate(authorizationHeader: "Bearer \(try token(key, subject: subject))", authorizerClaims: nil, now: AuthFixture.now)
            #expect(user.userID.rawValue == subject)
        }
        await expectRefused(authenticator, header: "Bearer \(try token(otherKey))", .badSignature)
    }

    @Test("the list mints with its first key: once the old key is dropped, its tokens still verify")
    func mintsWithFirst() async throws {
        let minted = try DevelopmentTokenMinter(settings: AuthSettings(keys: [newKey, oldKey])).mint(
            subject: "user-1", name: nil, email: nil, issuedAt: AuthFixture.now, expiresAt: AuthFixture.now.addingTimeInterval(600)
        )
        let newOnly = Authenticator(settings: try AuthSettings(key: newKey))
        let oldOnly = Authenticator(settings: try AuthSettings(key: oldKey))
        #expect(try await newOnly.authenticate(authorizationHeader: "Bearer \(minted)", authorizerClaims: nil, now: AuthFixture.now).userID.rawValue == "user-1")
        await expectRefused(oldOnly, header: "Bearer \(minted)", .badSignature)
    }
}
