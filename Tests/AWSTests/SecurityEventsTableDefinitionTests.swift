import Foundation
import PayPulseAWS
import PayPulseTestSupport
import Testing

/// `paypulse setup` and template.yaml must create the same security events table (key,
/// billing, TTL attribute). Both are checked against one committed description,
/// deploy/security-events-table.json: here the requests setup sends, in
/// scripts/check_template.py the template's `SecurityEventsTable`.
@Suite("The security events table setup creates is deploy/security-events-table.json")
struct SecurityEventsTableDefinitionTests {
    @Test("createTableIfNeeded sends exactly the file's CreateTable, then its UpdateTimeToLive")
    func requestsAreTheCommittedDefinition() async throws {
        try await SetupRequests.expectSent(definition: "security-events-table.json") { client, name in
            try await DynamoDBSecurityEventLedger(client: client, table: name).createTableIfNeeded()
        }
    }

    @Test("an existing table with its time to live is left alone: after the ResourceInUseException, one DescribeTimeToLive and no write")
    func existingTableIsANoOp() async throws {
        let json = ["Content-Type": "application/x-amz-json-1.0"]
        let server = try ScriptedHTTPServer { _, request in
            request.headers["x-amz-target"] == "DynamoDB_20120810.DescribeTimeToLive"
                ? .respond(status: 200, headers: json, body: #"{"TimeToLiveDescription":{"AttributeName":"expires_at","TimeToLiveStatus":"ENABLED"}}"#)
                : .respond(
                    status: 400, headers: json,
                    body: #"{"__type":"com.amazonaws.dynamodb.v20120810#ResourceInUseException","message":"Table already exists"}"#
                )
        }
        defer { server.stop() }
        let ledger = DynamoDBSecurityEventLedger(client: try AWSTestClients.dynamoDB(endpoint: server.url), table: "paypulse-security-events")
        try await ledger.createTableIfNeeded()
        #expect(server.requests.map { $0.headers["x-amz-target"] } == ["DynamoDB_20120810.CreateTable", "DynamoDB_20120810.DescribeTimeToLive"])
    }
}
