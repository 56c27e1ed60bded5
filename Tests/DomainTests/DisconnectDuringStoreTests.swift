import Foundation
import PayPulseDomain
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// A disconnect that lands between store-tokens' read and its compare-and-swap (found by
/// the concurrency soak, where it answered 500): the store must reconnect, not fail.
@Suite("TokenVault.store racing a disconnect")
struct DisconnectDuringStoreTests {
    /// Stores that refuse writes to a deleted secret, as AWS does (moto accepts them).
    static var factories: [StoreFactory] { [.embedded, .inMemory] }

    @Test("a disconnect after the read: the store restores the secret and counts as a first connection", arguments: factories)
    func disconnectBetweenReadAndWrite(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let user = UserID("race-\(UUID().uuidString.prefix(8))")!
            _ = try await TokenVault(secrets: stores.secrets).store(
                IncomingTokens(accessToken: "a1", refreshToken: "r1", email: "jane@gmail.com"), for: user
            )
            let racing = RacingSecretStore(stores.secrets, name: user.secretName, afterFirstRead: { inner in
                _ = try await inner.deleteSecret(name: user.secretName, recoveryWindowDays: 7)
            })
            // The race is played, not timed: a budget no scheduling delay of a loaded run reaches
            // (the default's 29 s ran out once in CI while other suites held the threads).
            let patient = RetryPolicy(
                maxAttempts: RetryPolicy.lostRace.maxAttempts, baseDelay: .milliseconds(1), maxDelay: .milliseconds(2), totalBudget: .seconds(86_400)
            )
            let result = try await TokenVault(secrets: racing, lostRace: patient).store(
                IncomingTokens(accessToken: "a2", refreshToken: "r2", email: "jane@gmail.com"), for: user
            )
            #expect(racing.raced)
            #expect(result.outcome == .firstConnection)
            let vault = TokenVault(secrets: stores.secrets)
            #expect(try await vault.connectionState(of: user) == .connected)
            #expect(try await vault.current(of: user)?.tokenSet.accessToken == "a2")
        }
    }
}
