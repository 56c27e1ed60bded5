#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// The ``UserDirectory`` contract, run against every ``StoreFactory/all`` factory.
@Suite("UserDirectory contract")
struct UserDirectoryContractTests {
    @Test(arguments: StoreFactory.all)
    func putThenGet(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let user = UserRecord(
                userID: "test-\(UUID().uuidString)", name: "Ada", email: "ada@example.com",
                createdOn: "2024-11-01T10:00:00Z")
            try await stores.users.putUser(user)
            #expect(try await stores.users.user(id: user.userID) == user)
        }
    }

    @Test(arguments: StoreFactory.all)
    func missingUserIsNil(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let found = try await stores.users.user(id: "test-missing-\(UUID().uuidString)")
            #expect(found == nil)
        }
    }

    @Test(arguments: StoreFactory.all)
    func putOverwrites(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let id = "test-\(UUID().uuidString)"
            try await stores.users.putUser(
                UserRecord(userID: id, name: "Old", email: "old@example.com", createdOn: "2024-01-01T00:00:00Z"))
            let newer = UserRecord(userID: id, name: "New", email: "new@example.com", createdOn: "2024-02-01T00:00:00Z")
            try await stores.users.putUser(newer)
            #expect(try await stores.users.user(id: id) == newer)
        }
    }
}
