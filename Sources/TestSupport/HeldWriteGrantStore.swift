#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization
import PayPulsePorts

/// Forwards to a grant store, but holds the next value write (a create or a compare-and-swap)
/// of a user until the test lets it go, as a slow store or a paused function does: the write
/// lands after whatever the test does meanwhile (Google's event delivered and applied), then
/// is answered as the inner store answers it then. Optionally runs a step just before it.
package final class HeldWriteGrantStore: GrantStore {
    let inner: any GrantStore
    private struct Hold {
        var arrived = false
        var released = false
        var before: (@Sendable () async throws -> Void)?
    }
    private let holds = Mutex<[String: Hold]>([:])

    /// Wraps `inner`; nothing held.
    package init(inner: any GrantStore) { self.inner = inner }

    /// Holds `user`'s next value write until ``release(_:)``; `before` runs when it is let go,
    /// just before it is sent (a test's interleaved write, which is not held).
    package func holdNextWrite(of user: String, before: (@Sendable () async throws -> Void)? = nil) {
        holds.withLock { $0[user] = Hold(before: before) }
    }

    /// Waits until `user`'s held write has arrived (its caller is waiting on it).
    package func waitForHeldWrite(of user: String) async {
        while !holds.withLock({ $0[user]?.arrived == true }) { try? await Task.sleep(for: .milliseconds(5)) }
    }

    /// Lets `user`'s held write go.
    package func release(_ user: String) { holds.withLock { $0[user]?.released = true } }

    private func pass(_ user: String) async throws {
        let held = holds.withLock { holds -> Bool in
            guard var hold = holds[user], !hold.arrived else { return false }
            hold.arrived = true
            holds[user] = hold
            return true
        }
        guard held else { return }
        while holds.withLock({ $0[user]?.released != true }) { try await Task.sleep(for: .milliseconds(5)) }
        let before = holds.withLock { $0.removeValue(forKey: user)?.before }
        try await before?()
    }

    package var writesAttributesWithValue: Bool { inner.writesAttributesWithValue }
    package var listsOnlyDue: Bool { inner.listsOnlyDue }

    package func create(_ user: String, value: String, attributes: [String: String]) async throws -> GrantVersion {
        try await pass(user)
        return try await inner.create(user, value: value, attributes: attributes)
    }
    package func replace(_ user: String, expected: GrantVersion, value: String, attributes: [String: String]?) async throws -> GrantVersion {
        try await pass(user)
        return try await inner.replace(user, expected: expected, value: value, attributes: attributes)
    }
    package func users(with attribute: IndexedGrantAttribute, equalTo value: String) async throws -> [String] {
        try await inner.users(with: attribute, equalTo: value)
    }
    package func list(userPrefix: String, includeDeleted: Bool, cursor: String?, limit: Int) async throws -> GrantPage {
        try await inner.list(userPrefix: userPrefix, includeDeleted: includeDeleted, cursor: cursor, limit: limit)
    }
    package func listDue(userPrefix: String, dueBy: Date, cursor: String?, limit: Int) async throws -> GrantPage {
        try await inner.listDue(userPrefix: userPrefix, dueBy: dueBy, cursor: cursor, limit: limit)
    }
    package func state(of user: String) async throws -> GrantState { try await inner.state(of: user) }
    package func read(_ user: String) async throws -> GrantValue { try await inner.read(user) }
    package func mark(_ user: String, attributes: [String: String], expected: GrantVersion?) async throws {
        try await inner.mark(user, attributes: attributes, expected: expected)
    }
    package func delete(_ user: String, expected: GrantVersion?, recoveryWindowDays: Int) async throws -> Date {
        try await inner.delete(user, expected: expected, recoveryWindowDays: recoveryWindowDays)
    }
    package func restore(_ user: String) async throws { try await inner.restore(user) }
}
