import Foundation
import Logging
import PayPulseAWS
import PayPulsePorts
import PayPulseTransport
import Synchronization
import Testing

/// Each AWS request and answer shape has one encoding: these tests replay moto's real
/// answers (``MotoExchanges``) through the public clients and check both directions on the
/// fixed bytes: the request body each client writes, byte for byte, and what it reads from
/// moto's answer.
@Suite("AWS shapes round-trip on moto's captured bytes")
struct AWSShapeRoundTripTests {
    /// Answers each request with the next exchange's answer and keeps what was sent.
    final class ReplayTransport: HTTPTransport {
        private let state: Mutex<(answers: [HTTPResponse], sent: [String])>

        init(_ exchanges: [MotoExchanges.Exchange]) { state = Mutex((exchanges.map(\.response), [])) }

        /// `target body` of each request, in order.
        var sent: [String] { state.withLock { $0.sent } }

        func execute(_ request: HTTPRequest) async throws -> HTTPResponse {
            try state.withLock { state in
                state.sent.append("\(request.headers["X-Amz-Target"] ?? "") \(String(decoding: request.body, as: UTF8.self))")
                guard !state.answers.isEmpty else { throw TransportError.connectionRefused }
                return state.answers.removeFirst()
            }
        }
    }

    private func client(_ service: AWSService, _ transport: ReplayTransport) throws -> AWSJSONClient {
        try AWSJSONClient(
            settings: .init(service: service, region: "us-east-1", endpoint: "http://127.0.0.1:1",
                            credentials: AWSCredentials(accessKeyID: "AKIAFIXTURE", secretAccessKey: "fixture-secret")),
            transport: transport, retryPolicy: .none, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        )
    }

    private func expectSent(_ transport: ReplayTransport, _ exchanges: [MotoExchanges.Exchange]) {
        #expect(transport.sent == exchanges.map { "\($0.target) \($0.request)" })
    }

    private let secret = "gmail/user/u-1"
    private let first = SecretVersionID("00000000-0000-4000-8000-000000000001")
    private let second = SecretVersionID("00000000-0000-4000-8000-000000000002")
    private let created = Date(timeIntervalSince1970: 1_795_637_178)

    @Test("Secrets Manager: create, read by stage and version, put, move the stage, describe")
    func secretsManagerWrites() async throws {
        let exchanges: [MotoExchanges.Exchange] = [
            .createSecret, .getSecretValue, .putSecretValue, .getSecretValueByVersion, .updateSecretVersionStage, .describeSecret,
        ]
        let transport = ReplayTransport(exchanges)
        let sm = SecretsManagerClient(client: try client(.secretsManager, transport))

        let version = try await sm.createSecret(
            name: secret, value: #"{"access_token":"ya29.one","token_type":"Bearer"}"#, tags: ["google_sub": "1234", "connected": "true"],
            clientRequestToken: first.rawValue
        )
        #expect(version == first)
        let current = try await sm.getSecretValue(name: secret)
        #expect(current == SecretValue(
            name: secret, versionID: first, string: #"{"access_token":"ya29.one","token_type":"Bearer"}"#, stages: [.current], createdDate: created
        ))
        let pending = try await sm.putSecretValue(
            name: secret, value: #"{"access_token":"ya29.two","token_type":"Bearer"}"#, clientRequestToken: second.rawValue, stages: [.pending]
        )
        #expect(pending == second)
        #expect(try await sm.getSecretValue(name: secret, versionID: second).stages == [.pending])
        try await sm.updateSecretVersionStage(name: secret, stage: .current, moveTo: second, removeFrom: first)
        let description = try await sm.describeSecret(name: secret)
        #expect(description == SecretDescription(
            name: secret, tags: ["connected": "true", "google_sub": "1234"], deletedDate: nil,
            versionStages: [first: [SecretStage("AWSPREVIOUS")], second: [.pending, .current]]
        ))
        expectSent(transport, exchanges)
    }

    @Test("Secrets Manager: tag, untag, list, delete with a window, describe the deleted, restore")
    func secretsManagerLifecycle() async throws {
        let exchanges: [MotoExchanges.Exchange] = [
            .tagResource, .untagResource, .listSecrets, .deleteSecret, .describeDeletedSecret, .restoreSecret,
        ]
        let transport = ReplayTransport(exchanges)
        let sm = SecretsManagerClient(client: try client(.secretsManager, transport))

        try await sm.tagResource(name: secret, tags: ["status": "active"])
        try await sm.untagResource(name: secret, tagKeys: ["google_sub"])
        let page = try await sm.listSecrets(namePrefix: "gmail/user/", includePlannedDeletion: false, maxResults: 10, nextToken: nil)
        #expect(page == SecretPage(
            secrets: [
                SecretSummary(name: secret, tags: ["connected": "true", "status": "active"], lastChangedDate: created, deletedDate: nil, currentVersion: second)
            ],
            nextToken: nil
        ))
        let deletion = Date(timeIntervalSince1970: 1_796_241_978.163758)
        #expect(try await sm.deleteSecret(name: secret, recoveryWindowDays: 7) == deletion)
        #expect(try await sm.describeSecret(name: secret).deletedDate == deletion)
        try await sm.restoreSecret(name: secret)
        expectSent(transport, exchanges)
    }

    @Test("Secrets Manager: an error answer is read as AWSError")
    func secretsManagerError() async throws {
        let transport = ReplayTransport([.getMissingSecret])
        let sm = SecretsManagerClient(client: try client(.secretsManager, transport))
        await #expect(throws: AWSError(type: "ResourceNotFoundException", message: "Secrets Manager can't find the specified secret.", status: 404)) {
            try await sm.getSecretValue(name: "gmail/user/nobody")
        }
        expectSent(transport, [.getMissingSecret])
    }

    private let tokens = "paypulse-tokens"
    private var table: DynamoDBTableDefinition {
        DynamoDBTableDefinition(
            name: tokens, partitionKey: .init("user_id", .string),
            indexes: [.init(name: "due", partitionKey: .init("due_shard", .number), sortKey: .init("due_at", .number), projection: .include(["status"]))]
        )
    }

    private let item: DynamoDBItem = [
        "user_id": .string("u-1"), "version": .number("1"), "sealed": .binary([0, 1, 2]), "connected": .bool(true),
        "due_shard": .number("3"), "due_at": .number("1767225600"), "status": .string("active"),
    ]

    @Test("DynamoDB: create a table with an index, time to live, describe it back")
    func dynamoDBTables() async throws {
        let exchanges: [MotoExchanges.Exchange] = [.createTable, .updateTimeToLive, .describeTable]
        let transport = ReplayTransport(exchanges)
        let dynamoDB = DynamoDBClient(client: try client(.dynamoDB, transport))

        try await dynamoDB.createTable(table)
        try await dynamoDB.updateTimeToLive(table: tokens, attribute: "expires_at")
        #expect(try await dynamoDB.describeTable(tokens) == table)
        expectSent(transport, exchanges)
    }

    @Test("DynamoDB: conditional put, get, a missing item, compare-and-swap won and lost, query, scan, delete")
    func dynamoDBItems() async throws {
        let exchanges: [MotoExchanges.Exchange] = [
            .putItem, .getItem, .getMissingItem, .updateItem, .updateItemConditionFailed, .putPlainItem, .query, .scan, .deleteItem,
        ]
        let transport = ReplayTransport(exchanges)
        let dynamoDB = DynamoDBClient(client: try client(.dynamoDB, transport))
        let key: DynamoDBItem = ["user_id": .string("u-1")]
        let swap = DynamoDBExpressionValues(names: ["#v": "version"], values: [":old": .number("1"), ":new": .number("2")])

        try await dynamoDB.putItem(table: tokens, item: item, condition: "attribute_not_exists(user_id)")
        #expect(try await dynamoDB.getItem(table: tokens, key: key) == item)
        #expect(try await dynamoDB.getItem(table: tokens, key: ["user_id": .string("u-2")]) == nil)
        var updated = item
        updated["version"] = .number("2")
        #expect(try await dynamoDB.updateItem(table: tokens, key: key, update: "SET #v = :new", condition: "#v = :old", placeholders: swap) == updated)
        let lost = await #expect(throws: AWSError.self) {
            try await dynamoDB.updateItem(table: tokens, key: key, update: "SET #v = :new", condition: "#v = :old", placeholders: swap)
        }
        #expect(lost?.isConditionalCheckFailed == true)
        try await dynamoDB.putItem(table: tokens, item: [
            "user_id": .string("u-2"), "due_shard": .number("3"), "due_at": .number("1767229200"), "status": .string("active"),
        ])
        let due = try await dynamoDB.query(
            table: tokens, index: "due", keyCondition: "due_shard = :s AND due_at <= :t",
            placeholders: .init(values: [":s": .number("3"), ":t": .number("1767300000")]), limit: 1
        )
        let entry: DynamoDBItem = ["user_id": .string("u-1"), "due_shard": .number("3"), "due_at": .number("1767225600")]
        #expect(due == DynamoDBPage(items: [entry.merging(["status": .string("active")]) { $1 }], lastEvaluatedKey: entry))
        let scanned = try await dynamoDB.scan(
            table: tokens, filter: "#s = :a", placeholders: .init(names: ["#s": "status"], values: [":a": .string("active")]), limit: 1
        )
        #expect(scanned == DynamoDBPage(items: [updated], lastEvaluatedKey: key))
        try await dynamoDB.deleteItem(table: tokens, key: ["user_id": .string("u-2")])
        expectSent(transport, exchanges)
    }

    @Test("KMS: create a key, generate a data key, decrypt it again")
    func kms() async throws {
        let exchanges: [MotoExchanges.Exchange] = [.createKey, .generateDataKey, .decrypt]
        let transport = ReplayTransport(exchanges)
        let kms = KMSClient(client: try client(.kms, transport))

        let keyID = try await kms.createKey(description: "paypulse fixture")
        #expect(keyID == "d6b3d6c1-4037-4bdd-bcff-3142a2577c22")
        let generated = try await kms.generateDataKey(keyID: keyID, context: ["user_id": "u-1"])
        #expect(generated.keyID == "arn:aws:kms:us-east-1:123456789012:key/\(keyID)")
        let opened = try await kms.decrypt(ciphertextBlob: generated.wrapped, context: ["user_id": "u-1"], keyID: keyID)
        #expect(opened == generated.plaintext)
        expectSent(transport, exchanges)
    }
}
