import Foundation
import PayPulseDomain
import PayPulsePorts
import PayPulseTestSupport
import Testing

@Suite("TokenVault over a secret store")
struct TokenVaultTests {
    let user = UserID("user-1")!

    @Test("first connection creates the secret with tags; later ones update by CAS", arguments: StoreFactory.all)
    func storeSequence(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let user = UserID("vault-\(UUID().uuidString.prefix(8))")!
            let vault = TokenVault(secrets: stores.secrets)
            let first = try await vault.store(IncomingTokens(accessToken: "a1", refreshToken: "r1", email: "jane@gmail.com"), for: user)
            #expect(first.outcome == .firstConnection)
            let description = try await stores.secrets.describeSecret(name: user.secretName)
            #expect(description.tags["paypulse:status"] == "active" && description.tags["paypulse:refreshable"] == "true")
            #expect(try await vault.connectionState(of: user) == .connected)

            let second = try await vault.store(IncomingTokens(accessToken: "a2", email: "jane@gmail.com"), for: user)
            #expect(second.outcome == .updated && second.tokenSet.refreshToken == "r1")
            let current = try #require(try await vault.current(of: user))
            #expect(current.tokenSet.accessToken == "a2" && current.tokenSet.refreshToken == "r1")

            let third = try await vault.store(IncomingTokens(accessToken: "a3", email: "other@gmail.com"), for: user)
            #expect(third.outcome == .accountSwitched && third.tokenSet.refreshToken == nil)
            #expect(try await stores.secrets.describeSecret(name: user.secretName).tags["paypulse:refreshable"] == "false")
        }
    }

    @Test("a reconnect after a disconnect restores the secret and counts as a first connection", arguments: StoreFactory.all)
    func reconnectAfterDelete(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let user = UserID("vault-\(UUID().uuidString.prefix(8))")!
            let vault = TokenVault(secrets: stores.secrets)
            _ = try await vault.store(IncomingTokens(accessToken: "a1", refreshToken: "r-dead", email: "jane@gmail.com"), for: user)
            _ = try await stores.secrets.deleteSecret(name: user.secretName, recoveryWindowDays: 7)
            #expect(try await vault.connectionState(of: user) == .scheduledForDeletion)
            #expect(try await vault.current(of: user) == nil)

            let again = try await vault.store(IncomingTokens(accessToken: "a2", email: "jane@gmail.com"), for: user)
            #expect(again.outcome == .firstConnection)
            #expect(again.tokenSet.refreshToken == nil)
            #expect(try await vault.connectionState(of: user) == .connected)
            #expect(try await vault.current(of: user)?.tokenSet.accessToken == "a2")
        }
    }

    @Test("a revoked set shows as revoked; a reconnect makes it connected again")
    func revokedState() async throws {
        let store = InMemorySecretStore()
        let vault = TokenVault(secrets: store)
        _ = try await vault.store(IncomingTokens(accessToken: "a1", refreshToken: "r1"), for: user)
        var current = try #require(try await vault.current(of: user))
        current.tokenSet.status = .revoked
        try await vault.replace(current.tokenSet, of: user, expected: current.version)
        #expect(try await vault.connectionState(of: user) == .revoked)
        _ = try await vault.store(IncomingTokens(accessToken: "a2", refreshToken: "r2"), for: user)
        #expect(try await vault.connectionState(of: user) == .connected)
    }

    @Test("a CAS that loses to a concurrent write reads again and merges over the newer set")
    func casRetry() async throws {
        let store = InMemorySecretStore()
        let vault = TokenVault(secrets: store)
        _ = try await vault.store(IncomingTokens(accessToken: "a1", refreshToken: "r1"), for: user)
        // The first CAS is refused as if a refresh had won the race.
        let refusals = Counter(1)
        await store.setFault { operation in operation == "ReplaceCurrent" && refusals.take() ? .conflict : nil }
        let result = try await vault.store(IncomingTokens(accessToken: "a2"), for: user)
        #expect(result.outcome == .updated)
        #expect(await store.calls.filter { $0 == "ReplaceCurrent" }.count == 2)
        #expect(try await vault.current(of: user)?.tokenSet.accessToken == "a2")
    }

    @Test("a write that keeps losing gives up with conflict and changes nothing")
    func casGivesUp() async throws {
        let store = InMemorySecretStore()
        let vault = TokenVault(secrets: store)
        _ = try await vault.store(IncomingTokens(accessToken: "a1", refreshToken: "r1"), for: user)
        await store.setFault { $0 == "ReplaceCurrent" ? .conflict : nil }
        await #expect(throws: StoreError.conflict) { try await vault.store(IncomingTokens(accessToken: "a2"), for: user) }
        await store.setFault(nil)
        #expect(try await vault.current(of: user)?.tokenSet.accessToken == "a1")
    }

    @Test("an unavailable store surfaces as unavailable; nothing written")
    func unavailable() async throws {
        let store = InMemorySecretStore()
        await store.setFault { $0 == "CreateSecret" ? .unavailable : nil }
        await #expect(throws: StoreError.unavailable) { try await TokenVault(secrets: store).store(IncomingTokens(accessToken: "a"), for: user) }
        await store.setFault(nil)
        #expect(try await TokenVault(secrets: store).connectionState(of: user) == .notConnected)
    }
}

/// Hands out `true` a fixed number of times, safely from any thread.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var remaining: Int
    init(_ count: Int) { remaining = count }
    func take() -> Bool {
        lock.withLock {
            guard remaining > 0 else { return false }
            remaining -= 1
            return true
        }
    }
}
