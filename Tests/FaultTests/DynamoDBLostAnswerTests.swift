import Foundation
import PayPulseAWS
import PayPulsePorts
import PayPulseTestSupport
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
