import Foundation
import PayPulseAWS
import PayPulseCoding
import PayPulseDomain
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// A grant document of a newer format than this release writes (met while a deployment
/// rolls back, or while old and new functions run side by side): this release cannot know
/// what its new members mean, so it refuses the grant (503, try again) rather than
/// rewriting it in its own format, which would drop them with whatever they hold.
@Suite("A grant document of a newer format is refused, never overwritten")
struct NewerFormatTests {
    static let document = """
        {"version":\(GmailTokenSet.currentFormat + 1),"access_token":"ya29.newer","refresh_token":"1//newer","token_type":"Bearer",\
        "expires_at":"2030-01-01T00:00:00Z","scope":"\(GmailScopes.readonly)","verified":true,"connected_at":"2026-01-01T00:00:00Z",\
        "updated_at":"2026-01-01T00:00:00Z","status":"active","lifecycle":{"last_sequence":7,"pending":[]},"member_of_a_later_release":{"kept":true}}
        """

    @Test("reading, storing over it, publishing and disconnecting all leave it as it is")
    func refusedNotOverwritten() async throws {
        let secrets = InMemorySecretStore(), grants = SecretsManagerGrantStore(secrets), user = UserID("newer-format")!
        try await grants.create(user.rawValue, value: Self.document, attributes: ["status": "active"])
        let vault = TokenVault(grants: grants)
        await #expect(throws: StoreError.unavailable) { try await vault.current(of: user) }
        await #expect(throws: StoreError.unavailable) { try await vault.store(IncomingTokens(accessToken: "ya29.older"), for: user) }
        await #expect(throws: StoreError.unavailable) {
            try await vault.store(IncomingTokens(accessToken: "ya29.older", refreshToken: "1//older", scopes: [GmailScopes.readonly], subject: "9"), for: user)
        }
        await #expect(throws: StoreError.unavailable) { try await vault.disconnect(user, recoveryWindowDays: 7) }
        #expect(try await grants.read(user.rawValue).value == Self.document, "the newer document stands, every member kept")
        #expect(throws: JSONTypeMismatch.self) { try GmailTokenSet.decode(Self.document) }
    }
}
