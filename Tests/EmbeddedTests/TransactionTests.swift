import PayPulseEmbedded
import PayPulsePorts
import Testing

@Suite("Compare-and-swap atomicity and pruning")
struct TransactionTests {
    @Test func aLostSwapWritesNothing() async throws {
        try await withStateDirectory { directory in
            let store = try EmbeddedSecretStore(stateDirectory: directory, logger: quietLogger)
            let first = try await store.createSecret(name: "s", value: "1", tags: [:], clientRequestToken: newToken())
            let second = try await store.putSecretValue(name: "s", value: "2", clientRequestToken: newToken())
            let before = try await store.describeSecret(name: "s")

            await expectStoreError(.conflict) {
                try await store.replaceCurrent(name: "s", expected: first, value: "3")
            }
            // No version was left behind.
            #expect(try await store.describeSecret(name: "s") == before)

            let third = try await store.replaceCurrent(name: "s", expected: second, value: "3")
            #expect(try await store.getSecretValue(name: "s", stage: .current).versionID == third)
        }
    }

    @Test func aFailedCreateLeavesNoSecret() async throws {
        try await withStateDirectory { directory in
            let store = try EmbeddedSecretStore(stateDirectory: directory, logger: quietLogger)
            // 51 tags: refused after the secret row was inserted, so the rollback matters.
            let tags = Dictionary(uniqueKeysWithValues: (0...50).map { ("k\($0)", "v") })
            await expectStoreError(.invalidRequest) {
                try await store.createSecret(name: "s", value: "v", tags: tags, clientRequestToken: newToken())
            }
            await expectStoreError(.notFound) { try await store.describeSecret(name: "s") }
        }
    }

    @Test func stagelessVersionsBeyondTheNewestTenArePruned() async throws {
        try await withStateDirectory { directory in
            let store = try EmbeddedSecretStore(stateDirectory: directory, logger: quietLogger)
            var versions = [try await store.createSecret(name: "s", value: "0", tags: [:], clientRequestToken: newToken())]
            let kept = try await store.putSecretValue(
                name: "s", value: "kept", clientRequestToken: newToken(), stages: [SecretStage("KEEP")])
            for index in 1...30 {
                versions.append(try await store.putSecretValue(name: "s", value: "\(index)", clientRequestToken: newToken()))
            }

            for old in versions.dropLast(10) {
                await expectStoreError(.notFound) { try await store.getSecretValue(name: "s", versionID: old) }
            }
            for recent in versions.suffix(10) {
                _ = try await store.getSecretValue(name: "s", versionID: recent)
            }
            #expect(try await store.getSecretValue(name: "s", versionID: kept).string == "kept")
            let stages = try await store.describeSecret(name: "s").versionStages
            #expect(stages.count == 3)
            #expect(stages[versions[30]] == [.current])
            #expect(stages[versions[29]] == [.previous])
        }
    }
}
