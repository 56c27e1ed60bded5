#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulsePorts
import PayPulseTestSupport
import Testing

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
