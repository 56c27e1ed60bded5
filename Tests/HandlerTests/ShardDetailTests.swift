@testable import PayPulseHandlers
import PayPulseDomain
import Testing

@Suite("token-refresh's detail: {} or exactly {\"shard\": i, \"shards\": n}")
struct ShardDetailTests {
    private func shard(_ detail: String) throws -> Shard {
        try TokenRefreshHandler.shard(from: Array(detail.utf8))
    }

    @Test("everyone, or the shard named")
    func accepted() throws {
        #expect(try shard("") == .all)
        #expect(try shard("{}") == .all)
        #expect(try shard(#"{"shard": 1, "shards": 2}"#) == Shard(index: 1, count: 2))
    }

    @Test("a miscased, unknown, repeated or non-integer member fails the run instead of refreshing everyone", arguments: [
        #"{"Shard": 1, "Shards": 2}"#, #"{"shard": 1, "shards": 2, "region": "eu"}"#, #"{"shards": 2, "shard": 1, "shard": 0}"#,
        #"{"shard": 1.0, "shards": 2}"#, #"{"shard": "1", "shards": 2}"#, #"{"shard": 3, "shards": 2}"#, #"{"shard": 1}"#, "[]", "null",
    ])
    func refused(_ detail: String) {
        #expect(throws: TokenRefreshHandler.InvalidInput.self) { try shard(detail) }
    }

    @Test("the error names the member it does not know")
    func namesTheMember() {
        do {
            _ = try shard(#"{"Shard": 1, "Shards": 2}"#)
            Issue.record("accepted a miscased shard")
        } catch {
            #expect("\(error)".contains("\"Shard\""))
        }
    }
}
