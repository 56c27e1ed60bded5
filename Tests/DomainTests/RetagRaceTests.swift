import Foundation
import PayPulseDomain
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// A tag repair (or a disconnect finding its mark already there) re-tags from a value it
/// read; a reconnect can store a newer value before those tags land. Found by the soak on
/// the DynamoDB store: the newer, active value was left with the older set's revoked tags,
/// so the listing showed it disconnected and the refresh job skipped it.
@Suite("Tags re-written from an older read never stay on a newer value")
struct RetagRaceTests {
    @Test("a retag for a version that was replaced leaves the tags describing the current value", arguments: StoreFactory.allGrantStores)
    func retagAfterANewerValue(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let user = UserID("retag-\(UUID().uuidString.prefix(8).lowercased())")!
            let vault = TokenVault(grants: stores.grants)
            _ = try await vault.store(IncomingTokens(accessToken: "a1", refreshToken: "r1", email: "jane@gmail.com"), for: user)
            var old = try #require(try await vault.current(of: user))
            old.tokenSet.status = .revoked
            try await vault.replace(old.tokenSet, of: user, expected: old.version)
            let revoked = try #require(try await vault.current(of: user))

            // A reconnect stores an active set; then the retag read before it lands.
            _ = try await vault.store(IncomingTokens(accessToken: "a2", refreshToken: "r2", email: "jane@gmail.com"), for: user)
            let current = try #require(try await vault.current(of: user))
            #expect(current.tokenSet.status == .active)
            do {
                try await vault.retag(revoked.tokenSet, of: user, version: revoked.version)
                #expect(!stores.grants.writesAttributesWithValue, "a store that can condition the mark must refuse it")
            } catch let error as StoreError where error == .conflict {
                #expect(stores.grants.writesAttributesWithValue)
            }

            #expect(try await stores.grants.state(of: user.rawValue).attributes == TokenSetTags.tags(for: current.tokenSet))
            #expect(try await vault.connectionState(of: user).isConnected)
        }
    }
}
