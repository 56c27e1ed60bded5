import Foundation
import PayPulseAWS
import PayPulsePorts
import PayPulseTestSupport
import Synchronization
import Testing

/// How long a data key lives across processes (moto_server's KMS): a key unwrapped to read
/// an item seals the user's next item only while it is younger than the lifetime and was
/// wrapped by the configured KMS key; the item carries the key's generation date (`dk_at`).
@Suite("Data key lifetime across processes, against moto_server")
struct DataKeyLifetimeTests {
    private static let tokens = Array(#"{"access_token":"ya29.lifetime","refresh_token":"1//lifetime"}"#.utf8)
    private static let start = Date(timeIntervalSince1970: 1_800_000_000)
    private static let day: TimeInterval = 86_400

    /// A process: a cipher over its own cache and counted KMS calls, with `date` as its wall clock.
    private func process(keyID: String, date: Date) async throws -> (EnvelopeCipher, CountingDataKeyService) {
        let counting = CountingDataKeyService(try await KMSFixture.client())
        return (EnvelopeCipher(keys: DataKeyCache(service: counting, keyID: keyID, wallClock: { date })), counting)
    }

    @Test("an unwrapped key seals the next item while younger than 30 days, with its own date; an older one makes way for a new key")
    func reuseBoundedByLifetime() async throws {
        let keyID = try await KMSFixture.client().createKey()
        let (writer, _) = try await process(keyID: keyID, date: Self.start)
        let stored = try await writer.seal(Self.tokens, userID: "user-a")
        #expect(stored.keyCreatedAt == Self.start)

        let (young, youngCalls) = try await process(keyID: keyID, date: Self.start.addingTimeInterval(29 * Self.day))
        _ = try await young.open(stored, userID: "user-a")
        let resealed = try await young.seal(Self.tokens, userID: "user-a")
        #expect(youngCalls.decryptCalls == 1 && youngCalls.generateCalls == 0)
        #expect(resealed.wrappedKey == stored.wrappedKey && resealed.keyCreatedAt == Self.start)

        let (old, oldCalls) = try await process(keyID: keyID, date: Self.start.addingTimeInterval(31 * Self.day))
        _ = try await old.open(resealed, userID: "user-a")
        let renewed = try await old.seal(Self.tokens, userID: "user-a")
        #expect(oldCalls.decryptCalls == 1 && oldCalls.generateCalls == 1)
        #expect(renewed.wrappedKey != stored.wrappedKey && renewed.keyCreatedAt == Self.start.addingTimeInterval(31 * Self.day))
    }

    @Test("an item wrapped by another KMS key than the configured one is sealed anew under the configured key")
    func configuredKeyWins() async throws {
        let kms = try await KMSFixture.client()
        let (oldKey, newKey) = (try await kms.createKey(), try await kms.createKey())
        let (writer, _) = try await process(keyID: oldKey, date: Self.start)
        let stored = try await writer.seal(Self.tokens, userID: "user-a")

        let (switched, calls) = try await process(keyID: newKey, date: Self.start.addingTimeInterval(Self.day))
        #expect(try await switched.open(stored, userID: "user-a") == Self.tokens)
        let resealed = try await switched.seal(Self.tokens, userID: "user-a")
        #expect(calls.generateCalls == 1)
        #expect(resealed.keyID.hasSuffix(newKey) && !resealed.keyID.hasSuffix(oldKey))
    }

    @Test("an envelope without a key date is opened, and its key seals nothing more")
    func undatedKeyIsNotReused() async throws {
        let keyID = try await KMSFixture.client().createKey()
        let (writer, _) = try await process(keyID: keyID, date: Self.start)
        var stored = try await writer.seal(Self.tokens, userID: "user-a")
        stored.keyCreatedAt = nil

        let (reader, calls) = try await process(keyID: keyID, date: Self.start)
        #expect(try await reader.open(stored, userID: "user-a") == Self.tokens)
        _ = try await reader.seal(Self.tokens, userID: "user-a")
        #expect(calls.generateCalls == 1)
    }

    @Test("the DynamoDB item keeps the data key's date beside the wrapped key")
    func itemCarriesTheKeyDate() async throws {
        let endpoint = try await MotoServer.shared().endpoint
        let kms = KMSClient(client: try AWSTestClients.jsonClient(.kms, endpoint: endpoint))
        let client = try AWSTestClients.dynamoDB(endpoint: endpoint)
        let table = "grants-dk-\(UUID().uuidString.lowercased())"
        let store = DynamoDBGrantStore(
            client: client, table: table,
            cipher: EnvelopeCipher(keys: DataKeyCache(service: kms, keyID: try await kms.createKey(), wallClock: { Self.start })), due: .defaultRefresh
        )
        try await store.createTableIfNeeded()
        let version = try await store.create("dated", value: "v1", attributes: [:])
        try await store.replace("dated", expected: version, value: "v2", attributes: [:])
        let item = try #require(try await client.scan(table: table).items.first)
        #expect(item["dk_at"]?.integerValue == Int64(Self.start.timeIntervalSince1970))
        #expect(try await store.read("dated").value == "v2")
    }
}
