import Foundation
import PayPulseAWS
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// What the DynamoDB ledger writes and how it reads what it did not write, against
/// moto_server (the contract suite covers its behaviour beside the other ledgers).
@Suite("DynamoDB security event ledger against moto_server")
struct DynamoDBSecurityEventLedgerTests {
    /// A fresh table as setup creates it, and a ledger on it at a fixed time.
    private func ledger(now: Date) async throws -> (DynamoDBSecurityEventLedger, DynamoDBClient, String) {
        let client = try AWSTestClients.dynamoDB(endpoint: try await MotoServer.shared().endpoint)
        let table = "events-\(UUID().uuidString.lowercased())"
        let ledger = DynamoDBSecurityEventLedger(client: client, table: table, now: { now })
        try await ledger.createTableIfNeeded()
        try await ledger.createTableIfNeeded()  // a second set-up is a no-op
        return (ledger, client, table)
    }

    @Test("an item is the jti and expires_at in whole seconds, rounded up, which the table's time to live reads")
    func itemShape() async throws {
        let now = Date(timeIntervalSince1970: 1_900_000_000)
        let (ledger, client, table) = try await ledger(now: now)
        try await ledger.record("evt/1", until: now.addingTimeInterval(60.2))
        let item = try await client.getItem(table: table, key: ["jti": .string("evt/1")])
        #expect(item == ["jti": .string("evt/1"), "expires_at": .integer(1_900_000_061)])
        #expect(try await client.describeTable(table) == DynamoDBSecurityEventLedger.table(named: table))
    }

    @Test("an item without a numeric expires_at is corrupt, neither recorded nor absent")
    func itemWithoutExpiryIsCorrupt() async throws {
        let (ledger, client, table) = try await ledger(now: Date())
        try await client.putItem(table: table, item: ["jti": .string("no-expiry")])
        try await client.putItem(table: table, item: ["jti": .string("text-expiry"), "expires_at": .string("soon")])
        for jti in ["no-expiry", "text-expiry"] {
            let error = await #expect(throws: StoreError.self) { try await ledger.contains(jti) }
            #expect(error == .corrupt, "\(jti): \(String(describing: error))")
        }
    }

    @Test("a table that does not exist is a StoreError for both calls, not an absent jti")
    func missingTableIsAStoreError() async throws {
        let client = try AWSTestClients.dynamoDB(endpoint: try await MotoServer.shared().endpoint)
        let ledger = DynamoDBSecurityEventLedger(client: client, table: "missing-\(UUID().uuidString.lowercased())")
        let read = await #expect(throws: StoreError.self) { try await ledger.contains("evt") }
        #expect(read == .notFound)
        let write = await #expect(throws: StoreError.self) { try await ledger.record("evt", until: Date().addingTimeInterval(60)) }
        #expect(write == .notFound)
    }

    @Test("an expiry past any date is refused before DynamoDB, as invalid_request")
    func expiryOutOfRange() async throws {
        let (ledger, _, _) = try await ledger(now: Date())
        let error = await #expect(throws: StoreError.self) {
            try await ledger.record("evt", until: Date(timeIntervalSince1970: .infinity))
        }
        #expect(error == .invalidRequest)
    }
}
