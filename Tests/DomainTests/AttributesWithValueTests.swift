import Foundation
import PayPulseDomain
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// The check for a writer that overtook our tags exists because Secrets Manager writes
/// tags by a call of their own; a store that writes them with the value skips it.
@Suite("TokenVault and GrantStore.writesAttributesWithValue")
struct AttributesWithValueTests {
    @Test("a retagging replace checks for an overtaking writer only where tags are a separate write", arguments: StoreFactory.all)
    func overtakingCheckFollowsTheCapability(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            for atomic in [false, true] {
                let user = UserID("atomic-\(UUID().uuidString.prefix(8))")!
                let log = StoreCallLog()
                let grants = RecordingGrantStore(inner: stores.grants, atomic: atomic, log: log)
                let vault = TokenVault(grants: grants)
                _ = try await vault.store(IncomingTokens(accessToken: "a1", refreshToken: "r1", email: "jane@gmail.com"), for: user)
                var read = try #require(try await vault.current(of: user))
                read.tokenSet.status = .revoked
                log.reset()

                try await vault.replace(read.tokenSet, of: user, expected: read.version)
                #expect(log.calls == (atomic ? ["replace"] : ["replace", "state"]), "atomic: \(atomic)")
                #expect(try await vault.connectionState(of: user) == .revoked)
            }
        }
    }
}

/// Passes every call to `inner`, records its name, and claims `atomic` as the capability.
private struct RecordingGrantStore: GrantStore {
    let inner: any GrantStore
    let atomic: Bool
    let log: StoreCallLog

    var writesAttributesWithValue: Bool { atomic }

    func state(of user: String) async throws -> GrantState {
        log.record("state")
        return try await inner.state(of: user)
    }

    func read(_ user: String) async throws -> GrantValue {
        log.record("read")
        return try await inner.read(user)
    }

    func create(_ user: String, value: String, attributes: [String: String]) async throws -> GrantVersion {
        log.record("create")
        return try await inner.create(user, value: value, attributes: attributes)
    }

    func replace(_ user: String, expected: GrantVersion, value: String, attributes: [String: String]?) async throws -> GrantVersion {
        log.record("replace")
        return try await inner.replace(user, expected: expected, value: value, attributes: attributes)
    }

    func mark(_ user: String, attributes: [String: String], expected: GrantVersion?) async throws {
        log.record("mark")
        try await inner.mark(user, attributes: attributes, expected: expected)
    }

    func delete(_ user: String, expected: GrantVersion?, recoveryWindowDays: Int) async throws -> Date {
        log.record("delete")
        return try await inner.delete(user, expected: expected, recoveryWindowDays: recoveryWindowDays)
    }

    func restore(_ user: String) async throws {
        log.record("restore")
        try await inner.restore(user)
    }

    func list(userPrefix: String, includeDeleted: Bool, cursor: String?, limit: Int) async throws -> GrantPage {
        log.record("list")
        return try await inner.list(userPrefix: userPrefix, includeDeleted: includeDeleted, cursor: cursor, limit: limit)
    }
    func users(with attribute: IndexedGrantAttribute, equalTo value: String) async throws -> [String] {
        log.record("users(with:equalTo:)")
        return try await inner.users(with: attribute, equalTo: value)
    }
}
