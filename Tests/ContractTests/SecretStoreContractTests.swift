#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// The ``SecretStore`` contract, run against every ``StoreFactory/all`` factory.
/// Listing, deletion and tags follow below, in extensions of this suite.
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
            let swapped = try await stores.secrets.replaceCurrent(name: name, expected: first, value: "2")
            #expect(swapped != first)

            let current = try await stores.secrets.getSecretValue(name: name, stage: .current)
            #expect(current.versionID == swapped)
            #expect(current.string == "2")
            #expect(try await stores.secrets.getSecretValue(name: name, stage: .previous).versionID == first)
        }
    }

    @Test(arguments: StoreFactory.all)
    func replaceCurrentRefusedAfterCurrentMoved(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let name = Scope().name("cas-twice")
            let first = try await stores.secrets.createSecret(name: name, value: "1", tags: [:], clientRequestToken: newToken())
            // Two writers read `first` (a refresh, a store-tokens); B swaps after A won, and
            // again after C moved the value on. Every writer swaps (no raw put moves
            // AWSCURRENT of a grant): on Secrets Manager the successor of `first` exists
            // whatever is current now.
            let won = try await stores.secrets.replaceCurrent(name: name, expected: first, value: "writer A")
            await expectStoreError(.conflict) {
                try await stores.secrets.replaceCurrent(name: name, expected: first, value: "writer B")
            }
            let third = try await stores.secrets.replaceCurrent(name: name, expected: won, value: "writer C")
            await expectStoreError(.conflict) {
                try await stores.secrets.replaceCurrent(name: name, expected: first, value: "writer B, late")
            }
            let current = try await stores.secrets.getSecretValue(name: name, stage: .current)
            #expect(current.versionID == third)
            #expect(current.string == "writer C")
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

extension SecretStoreContractTests {
    @Test(arguments: StoreFactory.all)
    func deleteHidesUntilRestored(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let scope = Scope()
            let name = scope.name("deleted")
            _ = try await stores.secrets.createSecret(name: name, value: "kept", tags: [:], clientRequestToken: newToken())
            let started = Date()

            let deletion = try await stores.secrets.deleteSecret(name: name, recoveryWindowDays: 7)
            #expect(deletion > started.addingTimeInterval(6 * 86_400))
            #expect(deletion < started.addingTimeInterval(8 * 86_400))

            #expect(try await stores.secrets.describeSecret(name: name).deletedDate != nil)
            await expectStoreError(.scheduledForDeletion) {
                try await stores.secrets.getSecretValue(name: name, stage: .current)
            }
            #expect(try await stores.secrets.listAll(prefix: scope.prefix).isEmpty)
            let planned = try await stores.secrets.listAll(prefix: scope.prefix, includePlannedDeletion: true)
            #expect(planned.map(\.name) == [name])
            #expect(planned.first?.deletedDate != nil)
            await expectStoreError(.alreadyExists, .scheduledForDeletion) {
                try await stores.secrets.createSecret(name: name, value: "new", tags: [:], clientRequestToken: newToken())
            }

            try await stores.secrets.restoreSecret(name: name)
            #expect(try await stores.secrets.describeSecret(name: name).deletedDate == nil)
            #expect(try await stores.secrets.getSecretValue(name: name, stage: .current).string == "kept")
            #expect(try await stores.secrets.listAll(prefix: scope.prefix).map(\.name) == [name])
        }
    }

    @Test(arguments: StoreFactory.all)
    func writesToADeletedSecretAreRefused(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let name = Scope().name("deleted-write")
            let first = try await stores.secrets.createSecret(name: name, value: "1", tags: [:], clientRequestToken: newToken())
            _ = try await stores.secrets.deleteSecret(name: name, recoveryWindowDays: 30)

            await expectStoreError(.scheduledForDeletion) {
                try await stores.secrets.putSecretValue(name: name, value: "2", clientRequestToken: newToken())
            }
            await expectStoreError(.scheduledForDeletion) {
                try await stores.secrets.replaceCurrent(name: name, expected: first, value: "2")
            }
            await expectStoreError(.scheduledForDeletion) {
                try await stores.secrets.updateSecretVersionStage(name: name, stage: .pending, moveTo: first, removeFrom: nil)
            }
            await expectStoreError(.scheduledForDeletion) {
                try await stores.secrets.tagResource(name: name, tags: ["k": "v"])
            }

            try await stores.secrets.restoreSecret(name: name)
            let current = try await stores.secrets.getSecretValue(name: name, stage: .current)
            #expect(current.versionID == first)
            #expect(current.string == "1")
        }
    }

    @Test(arguments: StoreFactory.all)
    func tagsAreAddedOverwrittenAndRemoved(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let name = Scope().name("tags")
            _ = try await stores.secrets.createSecret(
                name: name, value: "v", tags: ["status": "active", "email": "a@example.com"],
                clientRequestToken: newToken())

            try await stores.secrets.tagResource(name: name, tags: ["status": "revoked", "expires": "2030"])
            #expect(
                try await stores.secrets.describeSecret(name: name).tags
                    == ["status": "revoked", "email": "a@example.com", "expires": "2030"])

            try await stores.secrets.untagResource(name: name, tagKeys: ["email", "absent"])
            #expect(try await stores.secrets.describeSecret(name: name).tags == ["status": "revoked", "expires": "2030"])

            let listed = try await stores.secrets.listAll(prefix: name)
            #expect(listed.first?.tags == ["status": "revoked", "expires": "2030"])
        }
    }
}

extension SecretStoreContractTests {
    @Test(arguments: StoreFactory.all)
    func listingPagesThroughEverySecretExactlyOnce(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let scope = Scope()
            // Created out of order; zero-padded so name order is numeric order.
            let names = (0..<25).map { scope.name("secret-\($0 < 10 ? "0" : "")\($0)") }
            for name in names.shuffled() {
                _ = try await stores.secrets.createSecret(name: name, value: "v", tags: ["n": name], clientRequestToken: newToken())
            }

            var seen: [String] = []
            var token: String?
            var pages = 0
            repeat {
                let page = try await stores.secrets.listSecrets(
                    namePrefix: scope.prefix, includePlannedDeletion: false, maxResults: 10, nextToken: token)
                #expect(page.secrets.count <= 10)
                for summary in page.secrets { #expect(summary.tags == ["n": summary.name]) }
                seen += page.secrets.map(\.name)
                token = page.nextToken
                pages += 1
            } while token != nil && pages < 20

            // Secrets Manager promises no order across pages; the embedded store's name
            // order is checked in EmbeddedTests.
            #expect(seen.sorted() == names.sorted())
            #expect(Set(seen).count == seen.count)
            #expect(pages >= 3)
        }
    }

    @Test(arguments: StoreFactory.all)
    func prefixFilterIsCaseSensitive(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let scope = Scope()
            for suffix in ["Alpha", "alpha-1", "alpha-2", "beta"] {
                _ = try await stores.secrets.createSecret(
                    name: scope.name(suffix), value: "v", tags: [:], clientRequestToken: newToken())
            }
            let upper = try await stores.secrets.listAll(prefix: scope.name("A"))
            #expect(upper.map(\.name) == [scope.name("Alpha")])
            let lower = try await stores.secrets.listAll(prefix: scope.name("alpha"))
            #expect(lower.map(\.name).sorted() == [scope.name("alpha-1"), scope.name("alpha-2")])
            let all = try await stores.secrets.listAll(prefix: scope.prefix)
            #expect(all.count == 4)
        }
    }

    /// The refresh job tells due grants from the listing alone: when a value was last
    /// written must be there, set by a create and moved on by a replace. (Whether a tag
    /// change or a stage move alone moves it differs between AWS and moto; nothing relies
    /// on it.)
    @Test(arguments: StoreFactory.all)
    func listingShowsWhenAValueWasLastWritten(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let scope = Scope()
            let name = scope.name("changed")
            let before = Date().addingTimeInterval(-2)
            let first = try await stores.secrets.createSecret(name: name, value: "v1", tags: [:], clientRequestToken: newToken())
            let created = try #require(try await stores.secrets.listAll(prefix: name).first?.lastChangedDate)
            #expect(created >= before && created <= Date().addingTimeInterval(2))
            // Secrets Manager's dates are whole seconds on some paths: wait past the next one.
            try await Task.sleep(for: .milliseconds(1_100))
            _ = try await stores.secrets.replaceCurrent(name: name, expected: first, value: "v2")
            let replaced = try #require(try await stores.secrets.listAll(prefix: name).first?.lastChangedDate)
            #expect(replaced > created)
        }
    }
}
