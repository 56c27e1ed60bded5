#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseEmbedded
import PayPulsePorts
import Testing

@Suite("Recovery window on an injected clock")
struct DeletionClockTests {
    @Test func deletionDatesFollowTheClock() async throws {
        try await withStateDirectory { directory in
            let clock = FakeClock()
            let store = try EmbeddedSecretStore(stateDirectory: directory, logger: quietLogger, now: clock.now)
            _ = try await store.createSecret(name: "s", value: "v", tags: [:], clientRequestToken: newToken())
            let deletedAt = clock.now()

            let final = try await store.deleteSecret(name: "s", recoveryWindowDays: 7)
            #expect(final == deletedAt.addingTimeInterval(7 * 86_400))
            #expect(try await store.describeSecret(name: "s").deletedDate == deletedAt)
            await expectStoreError(.scheduledForDeletion) { try await store.deleteSecret(name: "s", recoveryWindowDays: 7) }
            await expectStoreError(.scheduledForDeletion) { try await store.untagResource(name: "s", tagKeys: ["k"]) }
        }
    }

    @Test func restoreWorksInsideTheWindow() async throws {
        try await withStateDirectory { directory in
            let clock = FakeClock()
            let store = try EmbeddedSecretStore(stateDirectory: directory, logger: quietLogger, now: clock.now)
            _ = try await store.createSecret(name: "s", value: "v", tags: [:], clientRequestToken: newToken())
            _ = try await store.deleteSecret(name: "s", recoveryWindowDays: 7)
            clock.advance(days: 6.9)
            try await store.restoreSecret(name: "s")
            clock.advance(days: 30)
            #expect(try await store.getSecretValue(name: "s", stage: .current).string == "v")
        }
    }

    @Test func afterTheWindowTheSecretIsGoneForGood() async throws {
        try await withStateDirectory { directory in
            let clock = FakeClock()
            let store = try EmbeddedSecretStore(stateDirectory: directory, logger: quietLogger, now: clock.now)
            let old = try await store.createSecret(name: "s", value: "old", tags: ["t": "1"], clientRequestToken: newToken())
            _ = try await store.deleteSecret(name: "s", recoveryWindowDays: 7)
            clock.advance(days: 7.01)

            await expectStoreError(.notFound) { try await store.describeSecret(name: "s") }
            await expectStoreError(.notFound) { try await store.restoreSecret(name: "s") }
            let listed = try await store.listSecrets(namePrefix: "", includePlannedDeletion: true, maxResults: 10, nextToken: nil)
            #expect(listed.secrets.isEmpty)

            // The name is free again; nothing of the old secret comes back.
            _ = try await store.createSecret(name: "s", value: "new", tags: [:], clientRequestToken: newToken())
            await expectStoreError(.notFound) { try await store.getSecretValue(name: "s", versionID: old) }
            #expect(try await store.describeSecret(name: "s").tags.isEmpty)
        }
    }
}
