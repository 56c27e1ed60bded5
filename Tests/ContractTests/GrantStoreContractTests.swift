#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// The ``GrantStore`` contract, run against every ``StoreFactory/allGrantStores`` factory (on each,
/// the store its ``StoreFactory/Stores/grants`` serves). Listing and deletion are in
/// `GrantStoreContractTests+Lifecycle.swift`.
@Suite("GrantStore contract")
struct GrantStoreContractTests {
    @Test(arguments: StoreFactory.allGrantStores)
    func createThenReadAndState(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let user = GrantScope().user("create")
            let version = try await stores.grants.create(user, value: "first", attributes: ["status": "active"])

            let read = try await stores.grants.read(user)
            #expect(read.value == "first")
            #expect(read.version == version)

            let state = try await stores.grants.state(of: user)
            #expect(state.attributes == ["status": "active"])
            #expect(state.deletionDate == nil)
            #expect(state.currentVersion == version)

            await expectStoreError(.alreadyExists) {
                try await stores.grants.create(user, value: "again", attributes: [:])
            }
            #expect(try await stores.grants.read(user).value == "first")
        }
    }

    @Test(arguments: StoreFactory.allGrantStores)
    func absentGrantIsNotFound(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let user = GrantScope().user("absent")
            await expectStoreError(.notFound) { try await stores.grants.read(user) }
            await expectStoreError(.notFound) { try await stores.grants.state(of: user) }
        }
    }

    @Test(arguments: StoreFactory.allGrantStores)
    func replaceWinsFromTheCurrentVersion(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let user = GrantScope().user("cas-win")
            let first = try await stores.grants.create(user, value: "1", attributes: ["status": "active", "expiry": "10"])

            let second = try await stores.grants.replace(user, expected: first, value: "2", attributes: ["status": "revoked", "expiry": "20"])
            #expect(second != first)
            let read = try await stores.grants.read(user)
            #expect(read.value == "2")
            #expect(read.version == second)
            let state = try await stores.grants.state(of: user)
            #expect(state.attributes == ["status": "revoked", "expiry": "20"])
            #expect(state.currentVersion == second)
        }
    }

    @Test(arguments: StoreFactory.allGrantStores)
    func replaceLosesFromAnOlderVersion(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let user = GrantScope().user("cas-lose")
            let first = try await stores.grants.create(user, value: "1", attributes: ["status": "active"])
            let second = try await stores.grants.replace(user, expected: first, value: "2", attributes: nil)

            await expectStoreError(.conflict) {
                try await stores.grants.replace(user, expected: first, value: "stale", attributes: ["status": "revoked"])
            }
            let read = try await stores.grants.read(user)
            #expect(read.value == "2")
            #expect(read.version == second)
            #expect(try await stores.grants.state(of: user).attributes == ["status": "active"])
        }
    }

    @Test(arguments: StoreFactory.allGrantStores)
    func replaceWithoutAttributesKeepsThem(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let user = GrantScope().user("keep")
            let first = try await stores.grants.create(user, value: "1", attributes: ["status": "active", "expiry": "10"])
            let second = try await stores.grants.replace(user, expected: first, value: "2", attributes: nil)

            #expect(try await stores.grants.read(user).value == "2")
            let state = try await stores.grants.state(of: user)
            #expect(state.attributes == ["status": "active", "expiry": "10"])
            #expect(state.currentVersion == second)
        }
    }

    @Test(arguments: StoreFactory.allGrantStores)
    func markSetsAttributesAndKeepsTheValue(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let user = GrantScope().user("mark")
            try await stores.grants.create(user, value: "v", attributes: ["status": "active", "expiry": "10"])

            // Whether a mark moves the version is the store's business (DynamoDB's will).
            try await stores.grants.mark(user, attributes: ["status": "revoked"])
            #expect(try await stores.grants.state(of: user).attributes == ["status": "revoked", "expiry": "10"])
            #expect(try await stores.grants.read(user).value == "v")
        }
    }
}

/// User ids unique to one test, so the suites can share a store with other runs.
struct GrantScope {
    /// `contract-<uuid>-`: every user a test makes starts with it.
    let prefix = "contract-\(UUID().uuidString.lowercased())-"

    /// A user id inside this test's prefix.
    func user(_ suffix: String) -> String { prefix + suffix }
}

extension GrantStore {
    /// Every grant whose user id starts with `prefix`, following the cursor to the end.
    func listAll(prefix: String, includeDeleted: Bool = false, limit: Int = 100) async throws -> [GrantSummary] {
        var all: [GrantSummary] = []
        var cursor: String?
        repeat {
            let page = try await list(userPrefix: prefix, includeDeleted: includeDeleted, cursor: cursor, limit: limit)
            all += page.grants
            cursor = page.cursor
        } while cursor != nil
        return all
    }
}
