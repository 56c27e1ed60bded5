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
        let definition = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: Self.definitionFile)) as? [String: Any])
        let createTable = try #require(definition["CreateTable"] as? [String: Any])
        let updateTimeToLive = try #require(definition["UpdateTimeToLive"] as? [String: Any])
        let name = try #require(createTable["TableName"] as? String)

        let server = try ScriptedHTTPServer { _, _ in
            .respond(status: 200, headers: ["Content-Type": "application/x-amz-json-1.0"], body: "{}")
        }
        defer { server.stop() }
        let ledger = DynamoDBSecurityEventLedger(client: try AWSTestClients.dynamoDB(endpoint: server.url), table: name)
        try await ledger.createTableIfNeeded()

        let requests = server.requests
        #expect(requests.map { $0.headers["x-amz-target"] } == ["DynamoDB_20120810.CreateTable", "DynamoDB_20120810.UpdateTimeToLive"])
        try #require(requests.count == 2)
        #expect(try Self.canonical(requests[0].body) == (try Self.canonical(createTable)))
        #expect(try Self.canonical(requests[1].body) == (try Self.canonical(updateTimeToLive)))
    }

    @Test("an existing table is left alone: a ResourceInUseException ends the set-up without a second request")
    func existingTableIsANoOp() async throws {
        let server = try ScriptedHTTPServer { _, _ in
            .respond(
                status: 400, headers: ["Content-Type": "application/x-amz-json-1.0"],
                body: #"{"__type":"com.amazonaws.dynamodb.v20120810#ResourceInUseException","message":"Table already exists"}"#
            )
        }
        defer { server.stop() }
        let ledger = DynamoDBSecurityEventLedger(client: try AWSTestClients.dynamoDB(endpoint: server.url), table: "paypulse-security-events")
        try await ledger.createTableIfNeeded()
        #expect(server.requests.map { $0.headers["x-amz-target"] } == ["DynamoDB_20120810.CreateTable"])
    }

    /// deploy/security-events-table.json, from this file's place in the repository.
    static let definitionFile = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("deploy").appendingPathComponent("security-events-table.json")

    /// JSON with sorted keys, so equal documents compare equal and a difference reads plainly.
    private static func canonical(_ object: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    private static func canonical(_ body: [UInt8]) throws -> String {
        try canonical(try JSONSerialization.jsonObject(with: Data(body)))
    }
}
