#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulsePorts

/// Forwards to a grant store, but every compare-and-swap loses, as if another writer always
/// came first: a `TokenVault` over it runs a reconnect that restores a deleted grant, tags
/// it, and then answers 409. ``LosingWritesSecretStore`` does the same one level down, for
/// grants kept as secrets; this one works on any ``GrantStore`` (DynamoDB too).
package struct LosingWritesGrantStore: GrantStore {
    let inner: any GrantStore

    /// Wraps `inner`.
    package init(inner: any GrantStore) { self.inner = inner }

    package var writesAttributesWithValue: Bool { inner.writesAttributesWithValue }

    /// Nothing is written: the swap lost.
    package func replace(_ user: String, expected: GrantVersion, value: String, attributes: [String: String]?) async throws -> GrantVersion {
        throw StoreError.conflict
    }

    package func state(of user: String) async throws -> GrantState { try await inner.state(of: user) }

    package func read(_ user: String) async throws -> GrantValue { try await inner.read(user) }

    package func create(_ user: String, value: String, attributes: [String: String]) async throws -> GrantVersion {
        try await inner.create(user, value: value, attributes: attributes)
    }

    package func mark(_ user: String, attributes: [String: String], expected: GrantVersion?) async throws {
        try await inner.mark(user, attributes: attributes, expected: expected)
    }

    package func delete(_ user: String, expected: GrantVersion?, recoveryWindowDays: Int) async throws -> Date {
        try await inner.delete(user, expected: expected, recoveryWindowDays: recoveryWindowDays)
    }

    package func restore(_ user: String) async throws { try await inner.restore(user) }

    package func list(userPrefix: String, includeDeleted: Bool, cursor: String?, limit: Int) async throws -> GrantPage {
        try await inner.list(userPrefix: userPrefix, includeDeleted: includeDeleted, cursor: cursor, limit: limit)
    }

    package func users(with attribute: IndexedGrantAttribute, equalTo value: String) async throws -> [String] {
        try await inner.users(with: attribute, equalTo: value)
    }
}
