import Foundation
import PayPulseAWS
import PayPulseTestSupport
import Testing

/// `paypulse setup --store dynamodb` and template.yaml must create the same tokens table
/// (keys, index, billing, TTL attribute). Both are checked against one committed description,
/// deploy/tokens-table.json: here the requests setup sends, in scripts/check_template.py the
/// template's `TokensTable`.
@Suite("The tokens table setup creates is deploy/tokens-table.json")
struct TokenTableDefinitionTests {
    @Test("createTableIfNeeded sends exactly the file's CreateTable, then its UpdateTimeToLive")
    func requestsAreTheCommittedDefinition() async throws {
        try await SetupRequests.expectSent(definition: "tokens-table.json") { client, name in
            try await DynamoDBGrantStore(
                client: client, table: name, cipher: EnvelopeCipher(keys: DataKeyCache(service: NoDataKeys(), keyID: "unused")), due: .defaultRefresh
            ).createTableIfNeeded()
        }
    }
}

/// What a table's set-up sends, checked against its committed description under deploy/.
enum SetupRequests {
    /// Runs `create` (a table's `createTableIfNeeded`, under the file's table name) against a
    /// server that answers every request with success, and expects exactly the file's
    /// `CreateTable`, then its `UpdateTimeToLive`.
    static func expectSent(
        definition file: String, sourceLocation: SourceLocation = #_sourceLocation,
        create: (DynamoDBClient, String) async throws -> Void
    ) async throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("deploy").appendingPathComponent(file)
        let definition = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let createTable = try #require(definition["CreateTable"] as? [String: Any])
        let updateTimeToLive = try #require(definition["UpdateTimeToLive"] as? [String: Any])
        let name = try #require(createTable["TableName"] as? String)

        let server = try ScriptedHTTPServer { _, _ in
            .respond(status: 200, headers: ["Content-Type": "application/x-amz-json-1.0"], body: "{}")
        }
        defer { server.stop() }
        try await create(try AWSTestClients.dynamoDB(endpoint: server.url), name)

        let requests = server.requests
        #expect(
            requests.map { $0.headers["x-amz-target"] } == ["DynamoDB_20120810.CreateTable", "DynamoDB_20120810.UpdateTimeToLive"],
            sourceLocation: sourceLocation
        )
        try #require(requests.count == 2, sourceLocation: sourceLocation)
        #expect(try canonical(requests[0].body) == (try canonical(createTable)), sourceLocation: sourceLocation)
        #expect(try canonical(requests[1].body) == (try canonical(updateTimeToLive)), sourceLocation: sourceLocation)
    }

    /// JSON with sorted keys, so equal documents compare equal and a difference reads plainly.
    private static func canonical(_ object: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    private static func canonical(_ body: [UInt8]) throws -> String {
        try canonical(try JSONSerialization.jsonObject(with: Data(body)))
    }
}

/// Creating a table seals nothing: a data key request is a test failure.
private struct NoDataKeys: DataKeyService {
    struct Unexpected: Error {}

    func generateDataKey(keyID: String, context: [String: String]) async throws -> GeneratedDataKey { throw Unexpected() }

    func decrypt(ciphertextBlob: [UInt8], context: [String: String], keyID: String?) async throws -> DataKey { throw Unexpected() }
}
