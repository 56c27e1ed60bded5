import Foundation
import PayPulseCoding
import PayPulseTestSupport
import Testing

@testable import PayPulseAWS

/// The set-up `paypulse setup` runs for the security events table, on moto_server: the
/// table is keyed by `jti` and DynamoDB's time to live is on for `expires_at`, read back
/// with `DescribeTimeToLive` (an operation only this test calls); a second set-up is a no-op.
@Suite("The security events table on moto_server: key and time to live")
struct SecurityEventsTableSetupTests {
    @Test("createTableIfNeeded makes a table keyed by jti with time to live on expires_at, and a second call changes nothing")
    func tableAndTimeToLive() async throws {
        let client = try AWSTestClients.dynamoDB(endpoint: try await MotoServer.shared().endpoint)
        let table = "events-\(UUID().uuidString.lowercased())"
        let ledger = DynamoDBSecurityEventLedger(client: client, table: table)
        try await ledger.createTableIfNeeded()
        try await ledger.record("evt-kept", until: Date().addingTimeInterval(3_600))
        try await ledger.createTableIfNeeded()

        #expect(try await client.describeTable(table) == DynamoDBSecurityEventLedger.table(named: table))
        let timeToLive: TimeToLiveDescription = try await client.client.call(
            AWSOperation(.dynamoDB, "DescribeTimeToLive", on: .table), DescribeTimeToLiveInput(table: table)
        )
        #expect(timeToLive.attribute == "expires_at")
        #expect(timeToLive.status == "ENABLED")
        #expect(try await ledger.contains("evt-kept"), "the second set-up left the table and its items alone")
    }
}

private struct DescribeTimeToLiveInput: AWSJSONInput {
    var table: String

    var json: JSONValue { .object(["TableName": .string(table)]) }
}

private struct TimeToLiveDescription: AWSJSONOutput {
    var attribute: String?
    var status: String?

    init(json fields: [String: JSONValue]) throws(JSONTypeMismatch) {
        let description = try fields.object("TimeToLiveDescription")
        attribute = try description?.string("AttributeName")
        status = try description?.string("TimeToLiveStatus")
    }
}
