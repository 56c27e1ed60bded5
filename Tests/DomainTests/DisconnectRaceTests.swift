import Foundation
import Logging
import PayPulseAWS
import PayPulseDomain
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// A reconnect written after a disconnect's last write and before its delete (the race the
/// soak found once) stands: the delete takes only the version the disconnect wrote or read.
/// The grants are secrets, whose store cannot condition a delete: it restores the reconnect.
@Suite("A reconnect racing a disconnect's delete")
struct DisconnectRaceTests {
    let secrets = InMemorySecretStore()
    let quiet = Logger(label: "race") { _ in SwiftLogNoOpLogHandler() }
    let user = UserID("race-user")!

    func tokens(_ refreshToken: String) -> IncomingTokens {
        IncomingTokens(accessToken: "ya29.x", refreshToken: refreshToken, scopes: [GmailScopes.readonly], subject: "1")
    }

    @Test("with a bus: both events go out, in order, and the grant ends connected with the new token")
    func withEvents() async throws {
        let bus = LifecycleOutboxTests.Bus(), quiet = quiet
        let vault: @Sendable (any GrantStore) -> TokenVault = { grants in
            TokenVault(grants: grants, events: LifecyclePublisher(bus: bus, metrics: DiscardedMetrics(), logger: quiet))
        }
        let plain = SecretsManagerGrantStore(secrets)
        _ = try await vault(plain).store(tokens("1//a"), for: user)
        let user = user, incoming = tokens("1//b")
        let racing = ReconnectBeforeDelete(inner: plain) { try await vault(plain).store(incoming, for: user) }
        try await vault(racing).disconnect(user, recoveryWindowDays: 7)

        #expect(racing.reconnects == 1, "the reconnect ran inside the delete")
        let stored = try #require(try await vault(plain).current(of: user)?.tokenSet, "the reconnect was deleted with the disconnect")
        #expect(stored.status == .active && stored.refreshToken == "1//b")
        #expect(stored.lifecycle?.deleteAfterPublishDays == nil)
        #expect(bus.types == ["Gmail Connected", "Gmail Disconnected", "Gmail Connected"])
        let statuses = bus.entries.compactMap { entry in
            (try? JSONSerialization.jsonObject(with: Data(entry.detail.utf8)) as? [String: Any]).map { "\($0["previous_status"] ?? "?")->\($0["status"] ?? "?")" }
        }
        #expect(statuses == ["not_connected->connected", "connected->disconnected", "disconnected->connected"])
    }

    @Test("without a bus: the grant ends connected with the new token")
    func withoutEvents() async throws {
        let plain = SecretsManagerGrantStore(secrets)
        _ = try await TokenVault(grants: plain).store(tokens("1//a"), for: user)
        let user = user, incoming = tokens("1//b")
        let racing = ReconnectBeforeDelete(inner: plain) { try await TokenVault(grants: plain).store(incoming, for: user) }
        try await TokenVault(grants: racing).disconnect(user, recoveryWindowDays: 7)

        #expect(racing.reconnects == 1, "the reconnect ran inside the delete")
        let stored = try #require(try await TokenVault(grants: plain).current(of: user)?.tokenSet, "the reconnect was deleted with the disconnect")
        #expect(stored.status == .active && stored.refreshToken == "1//b")
        #expect(try await TokenVault(grants: plain).connectionState(of: user).isConnected)
    }
}

/// Forwards to a grant store; the first delete runs `reconnect` (through the inner store)
/// before it is passed on, as a store-tokens landing in that gap would.
final class ReconnectBeforeDelete: GrantStore, @unchecked Sendable {
    let inner: any GrantStore
    private let reconnect: @Sendable () async throws -> TokenVault.StoreResult
    private let lock = NSLock()
    private var ran = 0

    init(inner: any GrantStore, reconnect: @escaping @Sendable () async throws -> TokenVault.StoreResult) {
        self.inner = inner
        self.reconnect = reconnect
    }

    var reconnects: Int { lock.withLock { ran } }
    var writesAttributesWithValue: Bool { inner.writesAttributesWithValue }

    func delete(_ user: String, expected: GrantVersion?, recoveryWindowDays: Int) async throws -> Date {
        let first = lock.withLock { defer { ran = 1 }; return ran == 0 }
        if first { _ = try await reconnect() }
        return try await inner.delete(user, expected: expected, recoveryWindowDays: recoveryWindowDays)
    }

    func state(of user: String) async throws -> GrantState { try await inner.state(of: user) }
    func read(_ user: String) async throws -> GrantValue { try await inner.read(user) }
    func create(_ user: String, value: String, attributes: [String: String]) async throws -> GrantVersion {
        try await inner.create(user, value: value, attributes: attributes)
    }
    func replace(_ user: String, expected: GrantVersion, value: String, attributes: [String: String]?) async throws -> GrantVersion {
        try await inner.replace(user, expected: expected, value: value, attributes: attributes)
    }
    func mark(_ user: String, attributes: [String: String], expected: GrantVersion?) async throws {
        try await inner.mark(user, attributes: attributes, expected: expected)
    }
    func restore(_ user: String) async throws { try await inner.restore(user) }
    func list(userPrefix: String, includeDeleted: Bool, cursor: String?, limit: Int) async throws -> GrantPage {
        try await inner.list(userPrefix: userPrefix, includeDeleted: includeDeleted, cursor: cursor, limit: limit)
    }
    func users(with attribute: IndexedGrantAttribute, equalTo value: String) async throws -> [String] {
        try await inner.users(with: attribute, equalTo: value)
    }
}
