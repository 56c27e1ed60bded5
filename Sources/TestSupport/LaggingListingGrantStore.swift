#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization
import PayPulsePorts

/// Forwards to a grant store, but its listings do not show the users it is told to hide, as
/// an index that lags its writes does (Secrets Manager's `ListSecrets` by up to five
/// minutes, a DynamoDB index by moments): ``users(with:equalTo:)``, ``list(userPrefix:includeDeleted:cursor:limit:)``
/// and ``listDue(userPrefix:dueBy:cursor:limit:)`` leave them out until ``show(_:)``.
/// Reads and writes by key are as the inner store's.
package final class LaggingListingGrantStore: GrantStore {
    let inner: any GrantStore
    private let hidden = Mutex<Set<String>>([])

    /// Wraps `inner`; nothing hidden yet.
    package init(inner: any GrantStore) { self.inner = inner }

    /// The listings stop showing `user`.
    package func hide(_ user: String) { hidden.withLock { _ = $0.insert(user) } }
    /// The listings catch up with `user`.
    package func show(_ user: String) { hidden.withLock { _ = $0.remove(user) } }

    private func shown(_ page: GrantPage) -> GrantPage {
        let hidden = hidden.withLock { $0 }
        var page = page
        page.grants.removeAll { hidden.contains($0.user) }
        return page
    }

    package var writesAttributesWithValue: Bool { inner.writesAttributesWithValue }
    package var listsOnlyDue: Bool { inner.listsOnlyDue }

    package func users(with attribute: IndexedGrantAttribute, equalTo value: String) async throws -> [String] {
        let hidden = hidden.withLock { $0 }
        return try await inner.users(with: attribute, equalTo: value).filter { !hidden.contains($0) }
    }

    package func list(userPrefix: String, includeDeleted: Bool, cursor: String?, limit: Int) async throws -> GrantPage {
        shown(try await inner.list(userPrefix: userPrefix, includeDeleted: includeDeleted, cursor: cursor, limit: limit))
    }

    package func listDue(userPrefix: String, dueBy: Date, cursor: String?, limit: Int) async throws -> GrantPage {
        shown(try await inner.listDue(userPrefix: userPrefix, dueBy: dueBy, cursor: cursor, limit: limit))
    }

    package func state(of user: String) async throws -> GrantState { try await inner.state(of: user) }
    package func read(_ user: String) async throws -> GrantValue { try await inner.read(user) }
    package func create(_ user: String, value: String, attributes: [String: String]) async throws -> GrantVersion {
        try await inner.create(user, value: value, attributes: attributes)
    }
    package func replace(_ user: String, expected: GrantVersion, value: String, attributes: [String: String]?) async throws -> GrantVersion {
        try await inner.replace(user, expected: expected, value: value, attributes: attributes)
    }
    package func mark(_ user: String, attributes: [String: String], expected: GrantVersion?) async throws {
        try await inner.mark(user, attributes: attributes, expected: expected)
    }
    package func delete(_ user: String, expected: GrantVersion?, recoveryWindowDays: Int) async throws -> Date {
        try await inner.delete(user, expected: expected, recoveryWindowDays: recoveryWindowDays)
    }
    package func restore(_ user: String) async throws { try await inner.restore(user) }
}
