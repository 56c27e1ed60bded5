import Foundation
import PayPulseDomain
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// A store that loses its compare-and-swap waits and tries again under the vault's
/// ``RetryPolicy``; the revoked mark of a disconnect, which only has to land on the
/// winner's value, re-reads at once first, and waits under the policy only once those
/// re-reads are spent (a refresh storm kept writing).
@Suite("TokenVault after a lost compare-and-swap")
struct LostRaceWaitTests {
    let user = UserID("lost-race")!

    /// A vault whose every compare-and-swap loses, recording each call on the secret store.
    private func losingVault(over store: InMemorySecretStore, _ policy: RetryPolicy, losing: Int = .max) -> (TokenVault, StoreCallLog) {
        let recording = CallRecordingSecretStore(LosingWritesSecretStore(inner: store, losing: losing))
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

    @Test("a disconnect's revoked mark re-reads at once after a lost swap, then waits under the policy like a store")
    func markRereadsThenWaits() async throws {
        let store = InMemorySecretStore()
        _ = try await TokenVault(secrets: store).store(IncomingTokens(accessToken: "a1", refreshToken: "r1"), for: user)
        let policy = RetryPolicy(maxAttempts: 2, baseDelay: .milliseconds(150), maxDelay: .milliseconds(150), totalBudget: TestTime.unreachableBudget)
        let (vault, log) = losingVault(over: store, policy)

        let started = ContinuousClock.now
        await #expect(throws: StoreError.conflict) { try await vault.disconnect(user, recoveryWindowDays: 7) }
        #expect(swaps(log) == 8, "TokenVault.rereadsAfterLostSwap at once, in each of the policy's two attempts")
        #expect(ContinuousClock.now - started >= .milliseconds(150), "one wait between the attempts")
    }

    /// Seen in a CI soak on DynamoDB: a refresh storm won a disconnect's four re-reads, and
    /// the user's disconnect answered 409.
    @Test("a disconnect whose revoked mark loses its first ten swaps to refreshes still lands: the user's disconnect wins")
    func markWinsOverARefreshStorm() async throws {
        let store = InMemorySecretStore()
        _ = try await TokenVault(secrets: store).store(IncomingTokens(accessToken: "a1", refreshToken: "r1"), for: user)
        let (vault, log) = losingVault(over: store, .lostRace, losing: 10)
        try await vault.disconnect(user, recoveryWindowDays: 7)
        #expect(swaps(log) == 11)
        #expect(try await TokenVault(secrets: store).connectionState(of: user) == .scheduledForDeletion)
    }
}
