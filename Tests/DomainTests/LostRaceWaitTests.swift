import Foundation
import PayPulseDomain
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// A store that loses its compare-and-swap waits and tries again under the vault's
/// ``RetryPolicy``; the revoked mark of a disconnect, which only has to land on the
/// winner's value, re-reads at once and never waits.
@Suite("TokenVault after a lost compare-and-swap")
struct LostRaceWaitTests {
    let user = UserID("lost-race")!

    /// A vault whose every compare-and-swap loses, recording each call on the secret store.
    private func losingVault(over store: InMemorySecretStore, _ policy: RetryPolicy) -> (TokenVault, StoreCallLog) {
        let recording = CallRecordingSecretStore(LosingWritesSecretStore(inner: store))
        return (TokenVault(secrets: recording, lostRace: policy, random: { 1 }), recording.log)
    }

    private func swaps(_ log: StoreCallLog) -> Int { log.calls.filter { $0.hasPrefix("SecretStore.replaceCurrent") }.count }

    @Test("a store that keeps losing makes the policy's attempts, waiting its pinned waits between them")
    func storeWaitsUnderThePolicy() async throws {
        let store = InMemorySecretStore()
        _ = try await TokenVault(secrets: store).store(IncomingTokens(accessToken: "a1", refreshToken: "r1"), for: user)
        let policy = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(150), maxDelay: .milliseconds(150), totalBudget: TestTime.unreachableBudget)
        let (vault, log) = losingVault(over: store, policy)

        let started = ContinuousClock.now
        await #expect(throws: StoreError.conflict) {
            try await vault.store(IncomingTokens(accessToken: "a2", refreshToken: "r2"), for: user)
        }
        #expect(swaps(log) == 3)
        // random 1 pins each wait at its ceiling: two waits of 150 ms.
        #expect(ContinuousClock.now - started >= .milliseconds(300))
    }

    @Test("a disconnect's revoked mark re-reads at once after a lost swap, whatever the policy's waits")
    func markRereadsWithoutWaiting() async throws {
        let store = InMemorySecretStore()
        _ = try await TokenVault(secrets: store).store(IncomingTokens(accessToken: "a1", refreshToken: "r1"), for: user)
        // Waits of a minute: a mark that waited would take one, and no loaded machine makes
        // four in-memory swaps take that long.
        let slow = RetryPolicy(maxAttempts: 16, baseDelay: .seconds(60), maxDelay: .seconds(60), totalBudget: TestTime.unreachableBudget)
        let (vault, log) = losingVault(over: store, slow)

        let started = ContinuousClock.now
        await #expect(throws: StoreError.conflict) { try await vault.disconnect(user, recoveryWindowDays: 7) }
        #expect(swaps(log) == 4, "TokenVault.rereadsAfterLostSwap")
        #expect(ContinuousClock.now - started < .seconds(60))
    }
}
