import Foundation
import Logging
import PayPulseAWS
import PayPulseDomain
import PayPulsePorts
import PayPulseTestSupport
import Synchronization
import Testing

/// A DynamoDB grant write whose answer is lost after it landed (the proxy resets the
/// connection or cuts the answer): the client's retry fails its condition on the item the
/// first attempt wrote, and the store must still report the write as done, not as someone
/// else's (a create as `alreadyExists`, a replace as a conflict). A true conflict stays one.
/// The fault matrix found this (store-tokens first, token-refresh: last write, reset-after
/// and truncate); this pins it down at the port.
@Suite("DynamoDB grant writes whose answer is lost")
struct DynamoDBLostAnswerTests {
    @Test("create and replace landed unheard succeed on the retry", arguments: [ProxyFault.resetAfterForward, .truncate])
    func landedUnheard(fault: ProxyFault) async throws {
        let endpoint = try await MotoServer.shared().endpoint
        let proxy = try FaultProxy(upstream: endpoint, dialect: .aws)
        defer { proxy.stop() }
        let suffix = UUID().uuidString.lowercased()
        let kms = KMSClient(client: try AWSTestClients.jsonClient(.kms, endpoint: endpoint))
        let keyID = try await kms.createKey(description: "paypulse lost answers \(suffix)")
        let store = { (endpoint: String) in
            DynamoDBGrantStore(
                client: try AWSTestClients.dynamoDB(endpoint: endpoint), table: "lost-answers-\(suffix)",
                cipher: EnvelopeCipher(keys: DataKeyCache(service: KMSClient(client: try AWSTestClients.jsonClient(.kms, endpoint: endpoint)), keyID: keyID)),
                due: .defaultRefresh
            )
        }
        let direct = try store(endpoint)
        try await direct.createTableIfNeeded()
        let proxied = try store(proxy.url)
        let user = "lost-\(suffix)"

        proxy.plan.inject(fault, at: .operation("PutItem", occurrence: 1))
        let created = try await proxied.create(user, value: "first", attributes: ["status": "active"])
        #expect(created == GrantVersion("1"))
        #expect(proxy.plan.count(of: "PutItem") == 2, "the lost answer was retried")

        proxy.plan.inject(fault, at: .operation("UpdateItem", occurrence: 1))
        let replaced = try await proxied.replace(user, expected: created, value: "second", attributes: ["status": "revoked"])
        #expect(replaced == GrantVersion("2"))
        #expect(proxy.plan.count(of: "UpdateItem") == 2, "the lost answer was retried")
        #expect(try await direct.read(user) == GrantValue(value: "second", version: GrantVersion("2")))
        #expect(try await direct.state(of: user).attributes == ["status": "revoked"])

        // Another writer's items are still refused: a stale version, an existing grant.
        await #expect(throws: StoreError.conflict) { try await proxied.replace(user, expected: created, value: "stale", attributes: nil) }
        await #expect(throws: StoreError.alreadyExists) { try await proxied.create(user, value: "again", attributes: [:]) }
        #expect(try await direct.read(user).value == "second")
    }
}

/// A write whose answer is lost and whose item another writer then overtakes, before the
/// client's retry arrives (the proxy resets the first attempt's answer and holds the retry
/// while the test writes past it): the retry fails its condition on an item that no longer
/// holds its value, and the store must still know the write for its own (its write token
/// stays in the item), or the caller decides again on a grant it has already changed.
@Suite("DynamoDB grant writes whose answer is lost, then overtaken")
struct DynamoDBOvertakenAnswerTests {
    /// The table behind a fault proxy and straight on moto, and a fresh user.
    struct Bench {
        let proxy: FaultProxy
        let direct: DynamoDBGrantStore
        let proxied: DynamoDBGrantStore
        let user: String

        init() async throws {
            let endpoint = try await MotoServer.shared().endpoint
            proxy = try FaultProxy(upstream: endpoint, dialect: .aws)
            let suffix = UUID().uuidString.lowercased()
            let kms = KMSClient(client: try AWSTestClients.jsonClient(.kms, endpoint: endpoint))
            let keyID = try await kms.createKey(description: "paypulse overtaken answers \(suffix)")
            let store = { (endpoint: String) in
                DynamoDBGrantStore(
                    client: try AWSTestClients.dynamoDB(endpoint: endpoint), table: "overtaken-\(suffix)",
                    cipher: EnvelopeCipher(keys: DataKeyCache(service: KMSClient(client: try AWSTestClients.jsonClient(.kms, endpoint: endpoint)), keyID: keyID)),
                    due: .defaultRefresh
                )
            }
            direct = try store(endpoint)
            try await direct.createTableIfNeeded()
            proxied = try store(proxy.url)
            user = "overtaken-\(suffix)"
        }

        /// The next `UpdateItem` through the proxy lands unheard; its retry waits at the gate returned.
        func loseNextUpdateAnswer() -> ProxyGate {
            let gate = ProxyGate(limit: .seconds(20)), sent = proxy.plan.count(of: "UpdateItem")
            proxy.plan.inject(.resetAfterForward, at: .operation("UpdateItem", occurrence: sent + 1))
            proxy.plan.inject(.hold(gate), at: .operation("UpdateItem", occurrence: sent + 2))
            return gate
        }
    }

    @Test("a replace overtaken after it landed unheard is still reported as written")
    func replaceOvertaken() async throws {
        let bench = try await Bench()
        defer { bench.proxy.stop() }
        let created = try await bench.direct.create(bench.user, value: "first", attributes: ["status": "active"])
        let gate = bench.loseNextUpdateAnswer()
        let replacing = Task { try await bench.proxied.replace(bench.user, expected: created, value: "second", attributes: ["status": "revoked"]) }
        #expect(await gate.waitUntilHeld(), "the retry reached the proxy")
        // Another writer read the landed write and wrote past it, three times, before the retry.
        var version = GrantVersion("2")
        for value in ["third", "fourth", "fifth"] {
            version = try await bench.direct.replace(bench.user, expected: version, value: value, attributes: ["status": "active"])
        }
        gate.open()
        #expect(try await replacing.value == GrantVersion("2"), "the write is ours, though overtaken")
        #expect(try await bench.direct.read(bench.user) == GrantValue(value: "fifth", version: GrantVersion("5")), "the newer value stands")
        // A write that truly lost is still refused.
        await #expect(throws: StoreError.conflict) { try await bench.proxied.replace(bench.user, expected: created, value: "stale", attributes: nil) }
    }

    @Test("a disconnect whose mark landed unheard, then overtaken by a reconnect, records one event and deletes nothing")
    func disconnectOvertakenByReconnect() async throws {
        let bench = try await Bench()
        defer { bench.proxy.stop() }
        let bus = RecordingLifecycleBus()
        let publisher = LifecyclePublisher(bus: bus, metrics: CollectingMetrics(), logger: Logger(label: "overtaken") { _ in SwiftLogNoOpLogHandler() })
        let user = UserID(bench.user)!
        let tokens = { (access: String) in
            IncomingTokens(accessToken: access, refreshToken: "1//overtaken", scopes: [GmailScopes.readonly], subject: "2000111", clientID: "client")
        }
        _ = try await TokenVault(grants: bench.direct).store(tokens("ya29.first"), for: user)

        let gate = bench.loseNextUpdateAnswer()
        let disconnecting = Task { try await TokenVault(grants: bench.proxied, events: publisher).disconnect(user, recoveryWindowDays: 7) }
        #expect(await gate.waitUntilHeld(), "the mark's retry reached the proxy")
        // The user reconnects on the mark that landed, before its retry.
        _ = try await TokenVault(grants: bench.direct, events: publisher).store(tokens("ya29.again"), for: user)
        gate.open()
        _ = try await disconnecting.value

        let disconnects = bus.entries.filter { $0.detailType == "Gmail Disconnected" }
        #expect(Set(disconnects.map(\.id)).count == 1, "one disconnect, one event: \(disconnects.map(\.id))")
        #expect(try await bench.direct.state(of: bench.user).isScheduledForDeletion == false, "the reconnect is not deleted")
        #expect(try await TokenVault(grants: bench.direct).current(of: user)?.tokenSet.status == .active, "the reconnect stands")
    }
}

/// A bus that takes every entry and keeps it.
final class RecordingLifecycleBus: LifecycleEventBus, Sendable {
    private let kept = Mutex<[LifecycleBusEntry]>([])
    let maxEntriesPerPut = 10

    var entries: [LifecycleBusEntry] { kept.withLock { $0 } }

    func put(_ entries: [LifecycleBusEntry], within budget: Duration) async throws(LifecycleBusFailure) -> [LifecycleBusFailure?] {
        kept.withLock { $0 += entries }
        return entries.map { _ in nil }
    }
}
