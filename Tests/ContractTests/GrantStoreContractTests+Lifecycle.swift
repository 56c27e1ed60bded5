#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulsePorts
import PayPulseTestSupport
import Testing

extension GrantStoreContractTests {
    @Test(arguments: StoreFactory.allGrantStores)
    func deleteHidesFromReadAndListUntilRestored(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let scope = GrantScope()
            let user = scope.user("deleted")
            let version = try await stores.grants.create(user, value: "kept", attributes: ["status": "active"])
            let started = Date()

            let deletion = try await stores.grants.delete(user, recoveryWindowDays: 7)
            #expect(deletion > started.addingTimeInterval(6 * 86_400))
            #expect(deletion < started.addingTimeInterval(8 * 86_400))

            let state = try await stores.grants.state(of: user)
            #expect(state.isScheduledForDeletion)
            #expect(state.attributes == ["status": "active"])
            await expectStoreError(.scheduledForDeletion) { try await stores.grants.read(user) }
            #expect(try await stores.grants.listAll(prefix: scope.prefix).isEmpty)
            let planned = try await stores.grants.listAll(prefix: scope.prefix, includeDeleted: true)
            #expect(planned.map(\.user) == [user])
            #expect(planned.first?.deletionDate != nil)
            await expectStoreError(.alreadyExists, .scheduledForDeletion) {
                try await stores.grants.create(user, value: "new", attributes: [:])
            }

            try await stores.grants.restore(user)
            #expect(try await stores.grants.state(of: user).deletionDate == nil)
            let read = try await stores.grants.read(user)
            #expect(read.value == "kept")
            #expect(read.version == version)
            #expect(try await stores.grants.listAll(prefix: scope.prefix).map(\.user) == [user])
        }
    }

    @Test(arguments: StoreFactory.allGrantStores)
    func listPagesThroughEveryGrantOnceWithItsAttributes(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let scope = GrantScope()
            let users = (0..<25).map { scope.user("u\($0 < 10 ? "0" : "")\($0)") }
            for user in users.shuffled() {
                try await stores.grants.create(user, value: "v", attributes: ["n": user])
            }

            var seen: [String] = []
            var cursor: String?
            var pages = 0
            repeat {
                let page = try await stores.grants.list(userPrefix: scope.prefix, includeDeleted: false, cursor: cursor, limit: 10)
                #expect(page.grants.count <= 10)
                for grant in page.grants {
                    #expect(grant.attributes == ["n": grant.user])
                    #expect(grant.deletionDate == nil)
                    #expect(grant.lastWritten != nil)
                }
                seen += page.grants.map(\.user)
                cursor = page.cursor
                pages += 1
            } while cursor != nil && pages < 20

            #expect(seen.sorted() == users.sorted())
            #expect(Set(seen).count == seen.count)
            #expect(pages >= 3)
        }
    }

    @Test(arguments: StoreFactory.allGrantStores)
    func listFiltersByUserPrefix(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let scope = GrantScope()
            for suffix in ["Alpha", "alpha-1", "alpha-2", "beta"] {
                try await stores.grants.create(scope.user(suffix), value: "v", attributes: [:])
            }
            #expect(try await stores.grants.listAll(prefix: scope.user("A")).map(\.user) == [scope.user("Alpha")])
            let lower = try await stores.grants.listAll(prefix: scope.user("alpha"))
            #expect(lower.map(\.user).sorted() == [scope.user("alpha-1"), scope.user("alpha-2")])
            #expect(try await stores.grants.listAll(prefix: scope.prefix).count == 4)
        }
    }

    /// The refresh job reads "a value was written at least this recently" from the listing:
    /// a replace must not leave the date before it.
    @Test(arguments: StoreFactory.allGrantStores)
    func listShowsWhenAValueWasLastWritten(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let scope = GrantScope()
            let user = scope.user("written")
            let first = try await stores.grants.create(user, value: "1", attributes: [:])
            let created = try #require(try await stores.grants.listAll(prefix: scope.prefix).first?.lastWritten)
            try await Task.sleep(for: .milliseconds(1_100))
            try await stores.grants.replace(user, expected: first, value: "2", attributes: nil)
            let replaced = try #require(try await stores.grants.listAll(prefix: scope.prefix).first?.lastWritten)
            #expect(replaced > created)
        }
    }
}
