#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// The ``GrantStore`` contract, run against every ``StoreFactory/allGrantStores`` factory (on each,
/// the store its ``StoreFactory/Stores/grants`` serves). Listing and deletion, marks and
/// the due listing follow below, in extensions of this suite.
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

extension GrantStoreContractTests {
    /// A disconnect deletes the version it marked: a value written after it (a reconnect)
    /// stands, readable and listed, whether the store conditions the delete or restores.
    @Test(arguments: StoreFactory.allGrantStores)
    func deleteOfAnOlderVersionLeavesTheNewerOne(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let scope = GrantScope()
            let user = scope.user("delete-cas")
            let marked = try await stores.grants.create(user, value: "revoked", attributes: ["status": "revoked"])
            let reconnected = try await stores.grants.replace(user, expected: marked, value: "reconnected", attributes: ["status": "active"])

            await expectStoreError(.conflict) { try await stores.grants.delete(user, expected: marked, recoveryWindowDays: 7) }
            let read = try await stores.grants.read(user)
            #expect(read.value == "reconnected")
            #expect(read.version == reconnected)
            #expect(try await stores.grants.state(of: user).deletionDate == nil)
            #expect(try await stores.grants.listAll(prefix: scope.prefix).map(\.user) == [user])

            try await stores.grants.delete(user, expected: reconnected, recoveryWindowDays: 7)
            #expect(try await stores.grants.state(of: user).isScheduledForDeletion)
        }
    }

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

/// A mark for a version that is no longer current: it must never leave a newer value with
/// the attributes of an older one where the store can prevent it.
extension GrantStoreContractTests {
    @Test(arguments: StoreFactory.allGrantStores)
    func markForAnOlderVersion(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let user = GrantScope().user("stale-mark")
            let first = try await stores.grants.create(user, value: "1", attributes: ["status": "revoked"])
            let second = try await stores.grants.replace(user, expected: first, value: "2", attributes: ["status": "active"])

            if stores.grants.writesAttributesWithValue {
                // Conditioned on the version: refused, the newer value keeps its own attributes.
                await expectStoreError(.conflict) { try await stores.grants.mark(user, attributes: ["status": "revoked"], expected: first) }
                #expect(try await stores.grants.state(of: user).attributes == ["status": "active"])
            } else {
                // Tags cannot be conditioned: written anyway, for the caller to check after.
                try await stores.grants.mark(user, attributes: ["status": "revoked"], expected: first)
                #expect(try await stores.grants.state(of: user).attributes == ["status": "revoked"])
            }
            // For the current version, every store marks.
            try await stores.grants.mark(user, attributes: ["status": "repaired"], expected: second)
            #expect(try await stores.grants.state(of: user).attributes == ["status": "repaired"])
            #expect(try await stores.grants.read(user).value == "2")
        }
    }
}

/// The due listing: what every store promises, index or not. The factories' stores that
/// have a due index key it by ``GrantDuePolicy/defaultRefresh`` (eager: due at the tagged
/// expiry), so these attributes are the token-set tags the product writes.
extension GrantStoreContractTests {
    /// Tags of an active, verified grant written now whose access token expires in a minute.
    static func activeTags(now: Date) -> [String: String] {
        ["paypulse:status": "active", "paypulse:refreshable": "true", "paypulse:verified": "true",
         "paypulse:expires-at": String(Int64(now.timeIntervalSince1970) + 60), "paypulse:lifetime": "60"]
    }

    @Test(arguments: StoreFactory.allGrantStores)
    func listDueListsEveryDueGrantOnceAndNoDeletedOne(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let scope = GrantScope(), now = Date(), tags = Self.activeTags(now: now)
            let due = (0..<12).map { scope.user("due\($0)") }
            for user in due { try await stores.grants.create(user, value: "v", attributes: tags) }
            let deleted = scope.user("deleted")
            try await stores.grants.create(deleted, value: "v", attributes: tags)
            try await stores.grants.delete(deleted, recoveryWindowDays: 7)
            var later = tags
            later["paypulse:expires-at"] = String(Int64(now.timeIntervalSince1970) + 86_400)
            later["paypulse:lifetime"] = "86400"
            let notDue = scope.user("later")
            try await stores.grants.create(notDue, value: "v", attributes: later)
            let outsider = "other-" + scope.user("due")
            try await stores.grants.create(outsider, value: "v", attributes: tags)

            let listed = try await stores.grants.listAllDue(prefix: scope.prefix, dueBy: now.addingTimeInterval(900), limit: 5)
            let users = listed.map(\.user)
            #expect(Set(due).isSubset(of: Set(users)))
            #expect(Set(users).count == users.count, "a grant listed twice")
            #expect(!users.contains(deleted))
            #expect(users.allSatisfy { $0.hasPrefix(scope.prefix) })
            // A due index lists nothing else; a store without one lists everyone.
            #expect(users.contains(notDue) == !stores.grants.listsOnlyDue)
            for grant in listed where due.contains(grant.user) {
                #expect(grant.attributes == tags)
                #expect(grant.lastWritten != nil)
            }
        }
    }
}

extension GrantStore {
    /// Every grant ``listDue(userPrefix:dueBy:cursor:limit:)`` lists, following the cursor
    /// to the end.
    func listAllDue(prefix: String, dueBy: Date, limit: Int = 100) async throws -> [GrantSummary] {
        var all: [GrantSummary] = []
        var cursor: String?
        var pages = 0
        repeat {
            let page = try await listDue(userPrefix: prefix, dueBy: dueBy, cursor: cursor, limit: limit)
            all += page.grants
            cursor = page.cursor
            pages += 1
        } while cursor != nil && pages < 1_000
        return all
    }
}

extension GrantStoreContractTests {
    /// Google's security events name an account by its `sub`: each store finds that
    /// account's grants through an index, exactly, whatever else the tags hold.
    @Test(arguments: StoreFactory.allGrantStores)
    func findsTheGrantsOfAGoogleSubject(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let scope = GrantScope()
            // Subjects unique to this run: the stores are shared with other tests.
            let subject = "1\(UInt64.random(in: 10_000_000_000...99_999_999_999))0000000000"
            let other = subject.dropLast() + "1"
            let sub = IndexedGrantAttribute.googleSubject.rawValue
            _ = try await stores.grants.create(scope.user("a"), value: "a", attributes: ["status": "active", sub: subject])
            _ = try await stores.grants.create(scope.user("b"), value: "b", attributes: ["status": "active", sub: subject])
            // Another account whose subject extends ours (a prefix match would take it), and
            // a grant holding the subject under another attribute name.
            _ = try await stores.grants.create(scope.user("c"), value: "c", attributes: ["status": "active", sub: subject + "9"])
            _ = try await stores.grants.create(scope.user("d"), value: "d", attributes: ["status": "active", sub: String(other), "note": subject])
            _ = try await stores.grants.create(scope.user("e"), value: "e", attributes: ["status": "active"])
            #expect(try await stores.grants.users(with: .googleSubject, equalTo: subject).sorted() == [scope.user("a"), scope.user("b")])
            #expect(try await stores.grants.users(with: .googleSubject, equalTo: String(other)) == [scope.user("d")])
            #expect(try await stores.grants.users(with: .googleSubject, equalTo: "1" + subject).isEmpty)

            // A mark that names the subject puts a grant in the index.
            try await stores.grants.mark(scope.user("e"), attributes: ["status": "active", sub: subject], expected: nil)
            #expect(try await stores.grants.users(with: .googleSubject, equalTo: subject).sorted() == [scope.user("a"), scope.user("b"), scope.user("e")])
        }
    }
}
