#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulsePorts
import PayPulseTestSupport
import Testing

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
            guard stores.supportsWriteProtectionOfDeletedSecrets else {
                // moto accepts such writes where AWS refuses them: skip this case only.
                try Test.cancel("\(factory) accepts writes to secrets scheduled for deletion")
            }
            let name = Scope().name("deleted-write")
            let first = try await stores.secrets.createSecret(name: name, value: "1", tags: [:], clientRequestToken: newToken())
            _ = try await stores.secrets.deleteSecret(name: name, recoveryWindowDays: 30)

            await expectStoreError(.scheduledForDeletion) {
                try await stores.secrets.putSecretValue(name: name, value: "2", clientRequestToken: newToken())
            }
            await expectStoreError(.scheduledForDeletion) {
                try await stores.secrets.replaceCurrent(name: name, expected: first, value: "2", clientRequestToken: newToken())
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
