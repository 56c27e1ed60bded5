import Foundation
import PayPulseDomain
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// A disconnect marks the set revoked before deleting it, so that a reconnect which
/// restores the secret and then fails leaves a set that reads as not connected. A writer
/// overtaken by that mark (a refresh, a store) tags after its compare-and-swap; when its
/// tags land after the mark's and the delete comes before its re-check, the deleted
/// secret keeps tags that say connected over a revoked value.
@Suite("A reconnect that fails after restoring a disconnected set")
struct RestoreAfterDisconnectTests {
    @Test("an overtaken writer's late tags must not make the restored, revoked set read as connected", arguments: StoreFactory.all)
    func lateTagsOfAnOvertakenWriter(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let user = UserID("restore-\(UUID().uuidString.prefix(8))")!
            let vault = TokenVault(secrets: stores.secrets)
            _ = try await vault.store(IncomingTokens(accessToken: "a1", refreshToken: "r1", email: "jane@gmail.com"), for: user)
            var refreshed = try #require(try await vault.current(of: user))
            refreshed.tokenSet.accessToken = "a2"

            // A refresh writes; before its tags go on, a disconnect marks the set revoked
            // (tags included); the refresh's tags land; the disconnect deletes before the
            // refresh re-checks the version.
            let racing = RacingSecretStore(
                stores.secrets, name: user.secretName,
                beforeFirstTag: { inner in
                    let disconnect = TokenVault(secrets: inner)
                    var marked = try #require(try await disconnect.current(of: user))
                    marked.tokenSet.status = .revoked
                    try await disconnect.replace(marked.tokenSet, of: user, expected: marked.version)
                },
                afterFirstTag: { inner in _ = try await inner.deleteSecret(name: user.secretName, recoveryWindowDays: 7) }
            )
            try await TokenVault(secrets: racing).replace(refreshed.tokenSet, of: user, expected: refreshed.version)
            #expect(racing.raced)

            // A reconnect restores the secret and then loses every compare-and-swap (409).
            let failing = LosingWritesSecretStore(inner: stores.secrets)
            await #expect(throws: StoreError.conflict) {
                try await TokenVault(secrets: failing).store(IncomingTokens(accessToken: "a3", refreshToken: "r3", email: "jane@gmail.com"), for: user)
            }
            #expect(try await vault.current(of: user)?.tokenSet.status == .revoked)
            #expect(try await vault.connectionState(of: user) != .connected)
        }
    }
}

extension RestoreAfterDisconnectTests {
    @Test("a set deleted before disconnects marked it (active value and tags) reads as not connected after a failed reconnect", arguments: StoreFactory.all)
    func deletedBeforeTheMarkExisted(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let user = UserID("legacy-\(UUID().uuidString.prefix(8))")!
            let vault = TokenVault(secrets: stores.secrets)
            _ = try await vault.store(IncomingTokens(accessToken: "a1", refreshToken: "r1", email: "jane@gmail.com"), for: user)
            // What a disconnect did before it marked the set: a plain delete.
            _ = try await stores.secrets.deleteSecret(name: user.secretName, recoveryWindowDays: 7)
            await #expect(throws: StoreError.conflict) {
                try await TokenVault(secrets: LosingWritesSecretStore(inner: stores.secrets))
                    .store(IncomingTokens(accessToken: "a3", refreshToken: "r3", email: "jane@gmail.com"), for: user)
            }
            #expect(try await vault.connectionState(of: user) == .revoked)
        }
    }
}
