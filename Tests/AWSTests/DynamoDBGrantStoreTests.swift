import Foundation
import PayPulseAWS
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// What the `GrantStore` contract cannot see of the DynamoDB store: the raw items hold no
/// token byte, and a sealed value moved or altered does not open (moto_server: DynamoDB and KMS).
@Suite("DynamoDB grant store: raw items and tampering, against moto_server")
struct DynamoDBGrantStoreTests {
    private static let accessToken = "ya29.dynamodb-raw-access-token"
    private static let refreshToken = "1//dynamodb-raw-refresh-token"
    private static let value = #"{"access_token":"\#(accessToken)","refresh_token":"\#(refreshToken)","status":"active"}"#

    /// A store on a fresh table and KMS key, with the raw client and table name beside it.
    private func store() async throws -> (DynamoDBGrantStore, DynamoDBClient, String) {
        let endpoint = try await MotoServer.shared().endpoint
        let client = try AWSTestClients.dynamoDB(endpoint: endpoint)
        let kms = KMSClient(client: try AWSTestClients.jsonClient(.kms, endpoint: endpoint))
        let table = "grants-raw-\(UUID().uuidString.lowercased())"
        let store = DynamoDBGrantStore(
            client: client, table: table, cipher: EnvelopeCipher(keys: DataKeyCache(service: kms, keyID: try await kms.createKey())), due: .defaultRefresh
        )
        try await store.createTableIfNeeded()
        return (store, client, table)
    }

    @Test("set-up on a table of the earlier shape (the due index alone) adds the subject index, which finds the grants already there")
    func earlierTableGainsTheSubjectIndex() async throws {
        let endpoint = try await MotoServer.shared().endpoint
        let client = try AWSTestClients.dynamoDB(endpoint: endpoint)
        let kms = KMSClient(client: try AWSTestClients.jsonClient(.kms, endpoint: endpoint))
        let table = "grants-earlier-\(UUID().uuidString.lowercased())"
        let current = try await { () async throws -> DynamoDBTableDefinition in
            let probe = "grants-shape-\(UUID().uuidString.lowercased())"
            try await DynamoDBGrantStore(
                client: client, table: probe, cipher: EnvelopeCipher(keys: DataKeyCache(service: kms, keyID: "unused")), due: .defaultRefresh
            ).createTableIfNeeded()
            return try await client.describeTable(probe)
        }()
        var earlier = current
        earlier.name = table
        earlier.indexes = current.indexes.filter { $0.name == DynamoDBGrantStore.dueIndexName }
        try await client.createTable(earlier)
        let store = DynamoDBGrantStore(
            client: client, table: table, cipher: EnvelopeCipher(keys: DataKeyCache(service: kms, keyID: try await kms.createKey())), due: .defaultRefresh
        )
        _ = try await store.create("user-1", value: Self.value, attributes: [IndexedGrantAttribute.googleSubject.rawValue: "104242424242424242424", IndexedGrantAttribute.refreshTokenHash.rawValue: "digest-1"])

        try await store.createTableIfNeeded()
        #expect(Set(try await client.indexNames(of: table)) == Set([DynamoDBGrantStore.dueIndexName] + IndexedGrantAttribute.allCases.map(DynamoDBGrantStore.lookupIndexName)))
        #expect(try await store.users(with: .googleSubject, equalTo: "104242424242424242424") == ["user-1"])
        #expect(try await store.users(with: .refreshTokenHash, equalTo: "digest-1") == ["user-1"])
        try await store.createTableIfNeeded()  // again: nothing left to add
    }

    @Test("the raw items hold no token byte: not in a plain attribute, not in the sealed ones")
    func noTokenByteInTheRawItems() async throws {
        let (store, client, table) = try await store()
        let first = try await store.create("raw-user", value: Self.value, attributes: ["paypulse:status": "active"])
        try await store.replace("raw-user", expected: first, value: Self.value, attributes: ["paypulse:status": "active"])

        let items = try await client.scan(table: table).items
        #expect(items.count == 1)
        for (name, attribute) in try #require(items.first) {
            let bytes: [UInt8] = switch attribute {
            case .string(let text), .number(let text): Array(text.utf8)
            case .binary(let data): data
            case .bool: []
            }
            for secret in [Self.accessToken, Self.refreshToken, "ya29", "1//"] {
                #expect(!bytes.containsRun(Array(secret.utf8)), "attribute \(name) holds \(secret)")
            }
        }
        #expect(try await store.read("raw-user").value == Self.value)
    }

    @Test("a sealed value moved to another user's item does not open: a clear error naming no token")
    func movedBetweenUsers() async throws {
        let (store, client, table) = try await store()
        try await store.create("user-a", value: Self.value, attributes: [:])
        try await store.create("user-b", value: #"{"access_token":"ya29.b"}"#, attributes: [:])

        var itemB = try #require(try await client.getItem(table: table, key: ["user_id": .string("user-b")]))
        let itemA = try #require(try await client.getItem(table: table, key: ["user_id": .string("user-a")]))
        for name in ["ct", "dk", "kid"] { itemB[name] = itemA[name] }
        try await client.putItem(table: table, item: itemB)

        let error = await storeError { try await store.read("user-b") }
        #expect(error == .corrupt)
        #expect(error.map { "\($0)" }?.contains("ya29") == false)
        #expect(try await store.read("user-a").value == Self.value)
    }

    @Test("a flipped byte in the sealed value is a clear error, and the other users read on")
    func tamperedCiphertext() async throws {
        let (store, client, table) = try await store()
        try await store.create("tampered", value: Self.value, attributes: [:])
        try await store.create("intact", value: Self.value, attributes: [:])

        var item = try #require(try await client.getItem(table: table, key: ["user_id": .string("tampered")]))
        var sealed = try #require(item["ct"]?.binaryValue)
        sealed[sealed.count / 2] ^= 0x01
        item["ct"] = .binary(sealed)
        try await client.putItem(table: table, item: item)

        let error = await storeError { try await store.read("tampered") }
        #expect(error == .corrupt)
        #expect(error.map { "\($0)" }?.contains(Self.accessToken) == false)
        #expect(try await store.read("intact").value == Self.value)
    }

    private func storeError(_ body: () async throws -> some Any) async -> StoreError? {
        do {
            _ = try await body()
            Issue.record("expected a StoreError, nothing was thrown")
            return nil
        } catch let error as StoreError {
            return error
        } catch {
            Issue.record("expected a StoreError, got \(error)")
            return nil
        }
    }
}

private extension Array where Element == UInt8 {
    /// Whether `run` occurs in these bytes, compared byte for byte.
    func containsRun(_ run: [UInt8]) -> Bool {
        guard !run.isEmpty, run.count <= count else { return false }
        return (0...(count - run.count)).contains { start in self[start..<start + run.count].elementsEqual(run) }
    }
}
