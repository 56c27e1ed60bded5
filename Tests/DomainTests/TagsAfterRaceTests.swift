import Foundation
import PayPulseDomain
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// Tags are written after the compare-and-swap, so the writer that lost the ordering can
/// land its tags last. The tags must still describe the current value: the profile and
/// the refresh job decide from them alone.
@Suite("TokenVault tags after racing writers")
struct TagsAfterRaceTests {
    @Test("a reconnect between a revocation's write and its tags leaves the tags of the reconnect", arguments: StoreFactory.all)
    func revocationTagsLandLast(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let user = UserID("tags-\(UUID().uuidString.prefix(8))")!
            let vault = TokenVault(secrets: stores.secrets)
            _ = try await vault.store(IncomingTokens(accessToken: "a1", refreshToken: "r1", email: "jane@gmail.com"), for: user)
            var read = try #require(try await vault.current(of: user))
            read.tokenSet.status = .revoked

            // The refresh job marks the set revoked; the app reconnects after that write
            // and before the job's tags go on.
            let racing = RacingSecretStore(stores.secrets, name: user.secretName, beforeFirstTag: { inner in
                _ = try await TokenVault(secrets: inner).store(
                    IncomingTokens(accessToken: "a2", refreshToken: "r2", email: "jane@gmail.com"), for: user
                )
            })
            try await TokenVault(secrets: racing).replace(read.tokenSet, of: user, expected: read.version)
            #expect(racing.raced)

            let current = try #require(try await vault.current(of: user))
            #expect(current.tokenSet.accessToken == "a2" && current.tokenSet.status == .active)
            let tags = try await stores.secrets.describeSecret(name: user.secretName).tags
            for (key, value) in TokenSetTags.tags(for: current.tokenSet) {
                #expect(tags[key] == value, "tag \(key)")
            }
            #expect(try await vault.connectionState(of: user) == .connected)
        }
    }
}
