import Foundation
import PayPulseAWS
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// `paypulse setup` run again over tables that lack their time to live (created by hand, or
/// by a set-up that stopped between `CreateTable` and `UpdateTimeToLive`): each gains it, so
/// expired records (deleted grants past their window, quota counts, ledger entries) go away.
@Suite("Set-up over a table without its time to live turns it on")
struct TimeToLiveSetupTests {
    @Test("the grants, request quota and security event tables gain their time to live; a second run changes nothing")
    func timeToLiveAdded() async throws {
        let endpoint = try await MotoServer.shared().endpoint
        let client = try AWSTestClients.dynamoDB(endpoint: endpoint)
        let suffix = UUID().uuidString.lowercased()
        let kms = KMSClient(client: try AWSTestClients.jsonClient(.kms, endpoint: endpoint))
        let keyID = try await kms.createKey(description: "paypulse ttl \(suffix)")
        let grants = DynamoDBGrantStore(
            client: client, table: "ttl-grants-\(suffix)", cipher: EnvelopeCipher(keys: DataKeyCache(service: kms, keyID: keyID)), due: .defaultRefresh
        )
        let tables: [(name: String, attribute: String, setUp: () async throws -> Void)] = [
            ("ttl-grants-\(suffix)", "purge_at", { try await grants.createTableIfNeeded() }),
            ("ttl-quota-\(suffix)", DynamoDBRequestQuota.expiresAtAttribute, {
                try await DynamoDBRequestQuota(client: client, table: "ttl-quota-\(suffix)", rule: QuotaRule(limit: 1)).createTableIfNeeded()
            }),
            ("ttl-ledger-\(suffix)", DynamoDBSecurityEventLedger.expiresAtAttribute, {
                try await DynamoDBSecurityEventLedger(client: client, table: "ttl-ledger-\(suffix)").createTableIfNeeded()
            }),
        ]
        for table in tables {
            try await table.setUp()
            #expect(try await client.timeToLiveAttribute(of: table.name) == table.attribute, "\(table.name): on when created")
            try await client.updateTimeToLive(table: table.name, attribute: table.attribute, enabled: false)
            #expect(try await client.timeToLiveAttribute(of: table.name) == nil, "\(table.name): turned off, as a table made by hand")
            try await table.setUp()
            #expect(try await client.timeToLiveAttribute(of: table.name) == table.attribute, "\(table.name): on again after the second set-up")
            try await table.setUp()
            #expect(try await client.timeToLiveAttribute(of: table.name) == table.attribute, "\(table.name): a third set-up changes nothing")
        }
    }
}
