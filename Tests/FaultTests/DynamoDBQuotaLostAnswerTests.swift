import Foundation
import PayPulseAWS
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// The request quota's `PutItem` whose answer is lost after it landed: the client's retry
/// fails its condition on the item the first attempt wrote, and the take must know that use
/// for its own (the post's id is in the item) rather than count the post a second time,
/// which would refuse a user's last allowed post with 429.
@Suite("DynamoDB request quota writes whose answer is lost")
struct DynamoDBQuotaLostAnswerTests {
    /// One quota table behind a fault proxy and straight on moto.
    struct Bench {
        let proxy: FaultProxy
        let direct: DynamoDBRequestQuota
        let proxied: DynamoDBRequestQuota

        init(limit: Int) async throws {
            let endpoint = try await MotoServer.shared().endpoint
            proxy = try FaultProxy(upstream: endpoint, dialect: .aws)
            let table = "quota-lost-\(UUID().uuidString.lowercased())", rule = QuotaRule(limit: limit)
            direct = DynamoDBRequestQuota(client: try AWSTestClients.dynamoDB(endpoint: endpoint), table: table, rule: rule)
            try await direct.createTableIfNeeded()
            proxied = DynamoDBRequestQuota(client: try AWSTestClients.dynamoDB(endpoint: proxy.url), table: table, rule: rule)
        }
    }

    static let now = 1_800_000_000.0

    @Test("limit 2: a post whose use landed unheard leaves the second post its use", arguments: [ProxyFault.resetAfterForward, .truncate])
    func landedUnheardCountsOnce(fault: ProxyFault) async throws {
        let bench = try await Bench(limit: 2)
        defer { bench.proxy.stop() }
        bench.proxy.plan.inject(fault, at: .operation("PutItem", occurrence: 1))
        #expect(try await bench.proxied.take(for: "u1", at: Self.now, id: "post-1") == .taken)
        #expect(bench.proxy.plan.count(of: "PutItem") == 2, "the lost answer was retried")
        #expect(try await bench.proxied.take(for: "u1", at: Self.now + 1, id: "post-2") == .taken, "the second post of two")
        #expect(try await bench.proxied.take(for: "u1", at: Self.now + 2, id: "post-3") == .exhausted(retryAfter: 58), "the third is refused")
    }

    @Test("limit 3: a use landed unheard, then another post's before the retry, still counts once")
    func landedUnheardThenOvertaken() async throws {
        let bench = try await Bench(limit: 3)
        defer { bench.proxy.stop() }
        let gate = ProxyGate(limit: .seconds(20))
        bench.proxy.plan.inject(.resetAfterForward, at: .operation("PutItem", occurrence: 1))
        bench.proxy.plan.inject(.hold(gate), at: .operation("PutItem", occurrence: 2))
        let first = Task { try await bench.proxied.take(for: "u1", at: Self.now, id: "post-1") }
        #expect(await gate.waitUntilHeld(), "the retry reached the proxy")
        #expect(try await bench.direct.take(for: "u1", at: Self.now + 1, id: "post-2") == .taken, "another post meanwhile")
        gate.open()
        #expect(try await first.value == .taken)
        #expect(try await bench.direct.take(for: "u1", at: Self.now + 2, id: "post-3") == .taken, "the third post of three")
        #expect(try await bench.direct.take(for: "u1", at: Self.now + 3, id: "post-4") == .exhausted(retryAfter: 57), "the fourth is refused")
    }
}
