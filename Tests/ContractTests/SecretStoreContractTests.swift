import PayPulsePorts
import PayPulseTestSupport
import Testing

/// The ``SecretStore`` contract, run against every ``StoreFactory/all`` factory.
/// Tests for listing and for deletion and tags are in extensions of this suite.
@Suite("SecretStore contract")
struct SecretStoreContractTests {
    @Test(arguments: StoreFactory.all)
    func createThenGetAndDescribe(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let name = Scope().name("create")
            let token = newToken()
            let id = try await stores.secrets.createSecret(
                name: name, value: "first", tags: ["app": "paypulse"], clientRequestToken: token)
            #expect(id == SecretVersionID(token))

            let value = try await stores.secrets.getSecretValue(name: name, stage: .current)
            #expect(value.name == name)
            #expect(value.string == "first")
            #expect(value.versionID == id)
            #expect(value.stages.contains(.current))

            let byID = try await stores.secrets.getSecretValue(name: name, versionID: id)
            #expect(byID.string == "first")

            let description = try await stores.secrets.describeSecret(name: name)
            #expect(description.name == name)
            #expect(description.tags == ["app": "paypulse"])
            #expect(description.deletedDate == nil)
            #expect(description.currentVersion == id)

            await expectStoreError(.alreadyExists) {
                try await stores.secrets.createSecret(name: name, value: "again", tags: [:], clientRequestToken: newToken())
            }
        }
    }

    @Test(arguments: StoreFactory.all)
    func putMovesCurrentAndLeavesPrevious(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let name = Scope().name("put")
            let first = try await stores.secrets.createSecret(name: name, value: "1", tags: [:], clientRequestToken: newToken())
            let second = try await stores.secrets.putSecretValue(name: name, value: "2", clientRequestToken: newToken())

            #expect(try await stores.secrets.getSecretValue(name: name, stage: .current).string == "2")
            let previous = try await stores.secrets.getSecretValue(name: name, stage: .previous)
            #expect(previous.versionID == first)
            #expect(previous.string == "1")

            let stages = try await stores.secrets.describeSecret(name: name).versionStages
            #expect(stages[second]?.contains(.current) == true)
            #expect(stages[first]?.contains(.previous) == true)
            #expect(stages[first]?.contains(.current) != true)
        }
    }

    @Test(arguments: StoreFactory.all)
    func clientRequestTokenIsIdempotent(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let name = Scope().name("idempotent")
            _ = try await stores.secrets.createSecret(name: name, value: "1", tags: [:], clientRequestToken: newToken())
            let token = newToken()
            let put = try await stores.secrets.putSecretValue(name: name, value: "2", clientRequestToken: token)
            let before = try await stores.secrets.describeSecret(name: name).versionStages

            let again = try await stores.secrets.putSecretValue(name: name, value: "2", clientRequestToken: token)
            #expect(again == put)
            #expect(try await stores.secrets.describeSecret(name: name).versionStages == before)

            await expectStoreError(.alreadyExists) {
                try await stores.secrets.putSecretValue(name: name, value: "other", clientRequestToken: token)
            }
            #expect(try await stores.secrets.getSecretValue(name: name, stage: .current).string == "2")
        }
    }

    @Test(arguments: StoreFactory.all)
    func replaceCurrentSwapsWhenExpectedIsCurrent(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let name = Scope().name("cas-win")
            let first = try await stores.secrets.createSecret(name: name, value: "1", tags: [:], clientRequestToken: newToken())
            let token = newToken()
            let swapped = try await stores.secrets.replaceCurrent(
                name: name, expected: first, value: "2", clientRequestToken: token)
            #expect(swapped == SecretVersionID(token))

            let current = try await stores.secrets.getSecretValue(name: name, stage: .current)
            #expect(current.versionID == swapped)
            #expect(current.string == "2")
            #expect(try await stores.secrets.getSecretValue(name: name, stage: .previous).versionID == first)
        }
    }

    @Test(arguments: StoreFactory.all)
    func replaceCurrentRefusedAfterCurrentMoved(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let name = Scope().name("cas-lose")
            let first = try await stores.secrets.createSecret(name: name, value: "1", tags: [:], clientRequestToken: newToken())
            // Another writer (store-tokens) gets in between the read and the swap.
            let newer = try await stores.secrets.putSecretValue(name: name, value: "newer", clientRequestToken: newToken())

            await expectStoreError(.conflict) {
                try await stores.secrets.replaceCurrent(
                    name: name, expected: first, value: "stale refresh", clientRequestToken: newToken())
            }
            let current = try await stores.secrets.getSecretValue(name: name, stage: .current)
            #expect(current.versionID == newer)
            #expect(current.string == "newer")
        }
    }

    @Test(arguments: StoreFactory.all)
    func updateStageIsACompareAndSwap(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let name = Scope().name("stage")
            let first = try await stores.secrets.createSecret(name: name, value: "1", tags: [:], clientRequestToken: newToken())
            let second = try await stores.secrets.putSecretValue(name: name, value: "2", clientRequestToken: newToken())
            let pending = try await stores.secrets.putSecretValue(
                name: name, value: "3", clientRequestToken: newToken(), stages: [.pending])
            #expect(try await stores.secrets.getSecretValue(name: name, stage: .current).versionID == second)

            // `first` no longer holds AWSCURRENT: the move is refused and nothing changes.
            await expectStoreError(.conflict) {
                try await stores.secrets.updateSecretVersionStage(
                    name: name, stage: .current, moveTo: pending, removeFrom: first)
            }
            #expect(try await stores.secrets.getSecretValue(name: name, stage: .current).versionID == second)

            try await stores.secrets.updateSecretVersionStage(
                name: name, stage: .current, moveTo: pending, removeFrom: second)
            let stages = try await stores.secrets.describeSecret(name: name).versionStages
            #expect(stages[pending]?.contains(.current) == true)
            #expect(stages[second]?.contains(.previous) == true)
            #expect(try await stores.secrets.getSecretValue(name: name, stage: .current).string == "3")

            // Without moveTo the stage is only removed.
            try await stores.secrets.updateSecretVersionStage(
                name: name, stage: .pending, moveTo: nil, removeFrom: pending)
            await expectStoreError(.notFound) {
                try await stores.secrets.getSecretValue(name: name, stage: .pending)
            }
        }
    }

    @Test(arguments: StoreFactory.all)
    func missingSecretsAndVersionsAreNotFound(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let scope = Scope()
            let missing = scope.name("missing")
            await expectStoreError(.notFound) { try await stores.secrets.getSecretValue(name: missing, stage: .current) }
            await expectStoreError(.notFound) { try await stores.secrets.describeSecret(name: missing) }
            await expectStoreError(.notFound) {
                try await stores.secrets.putSecretValue(name: missing, value: "x", clientRequestToken: newToken())
            }
            await expectStoreError(.notFound) { try await stores.secrets.deleteSecret(name: missing, recoveryWindowDays: 7) }

            let name = scope.name("present")
            _ = try await stores.secrets.createSecret(name: name, value: "1", tags: [:], clientRequestToken: newToken())
            await expectStoreError(.notFound) { try await stores.secrets.getSecretValue(name: name, stage: .pending) }
            await expectStoreError(.notFound) {
                try await stores.secrets.getSecretValue(name: name, versionID: SecretVersionID.random())
            }
        }
    }
}
