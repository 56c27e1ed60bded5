import Foundation
import PayPulseDomain
import PayPulsePorts
import PayPulseTestSupport
import Testing

@Suite("Refresh parts: shards, client ID, summary metrics")
struct RefreshPartsTests {
    @Test("the shard hash is stable and splits users across shards")
    func shards() {
        #expect(Shard.stableHash("") == 0xcbf2_9ce4_8422_2325)
        #expect(Shard.stableHash("a") == 0xaf63_dc4c_8601_ec8c)
        let users = (0..<300).map { UserID("user-\($0)")! }
        var counts = [0, 0, 0]
        for user in users {
            let owners = (0..<3).filter { Shard(index: $0, count: 3)!.contains(user) }
            #expect(owners.count == 1)
            counts[owners[0]] += 1
        }
        #expect(counts.allSatisfy { $0 > 60 })
        #expect(Shard(index: 2, count: 2) == nil && Shard(index: -1, count: 2) == nil && Shard(index: 0, count: 0) == nil)
    }

    @Test("the client ID secret is a plain ID, JSON with client_id, or JSON with a client_ids list, the default first")
    func clientIDs() async throws {
        #expect(try GoogleClients.parse("  abc.apps.googleusercontent.com\n", secretID: "s").ids == ["abc.apps.googleusercontent.com"])
        #expect(try GoogleClients.parse(#"{"client_id": "json.apps.googleusercontent.com"}"#, secretID: "s").ids == ["json.apps.googleusercontent.com"])
        let listed = try GoogleClients.parse(#"{"client_ids": ["store.apps", "debug.apps"]}"#, secretID: "s")
        #expect(listed.ids == ["store.apps", "debug.apps"] && listed.defaultID == "store.apps")
        for broken in [
            #"{"id": 1}"#, "", "two words", #"{"client_ids": []}"#, #"{"client_ids": ["a", "a"]}"#, #"{"client_ids": ["a", 1]}"#,
            #"{"client_ids": ["a b"]}"#, #"{"client_id": "a", "client_ids": ["b"]}"#, #"{"client_ids": "a"}"#, #"{"client_id": ""}"#, "{not json",
        ] {
            #expect(throws: GoogleClients.LoadError.self, "\(broken)") { try GoogleClients.parse(broken, secretID: "s") }
        }
        // The error names the secret, never its text.
        let error = try #require(throws: GoogleClients.LoadError.self) { try GoogleClients.parse(#"{"client_ids": ["secret-ish", 7]}"#, secretID: "the-secret") }
        #expect(error.description.contains("the-secret") && !error.description.contains("secret-ish"))
        let store = InMemorySecretStore()
        await #expect(throws: GoogleClients.LoadError.self) { try await GoogleClients.load(from: store, secretID: "Google-OAuth-Client-ID") }
        _ = try await store.createSecret(name: "Google-OAuth-Client-ID", value: "id.apps", tags: [:], clientRequestToken: "t")
        #expect(try await GoogleClients.load(from: store, secretID: "Google-OAuth-Client-ID").ids == ["id.apps"])
    }

    @Test("a grant of unknown client is tried with the app's client first when it is ours, and never with one that is not")
    func trialOrder() {
        let clients = GoogleClients(ids: ["store.apps", "debug.apps", "web.apps"])
        #expect(clients.trialOrder(preferring: nil) == ["store.apps", "debug.apps", "web.apps"])
        #expect(clients.trialOrder(preferring: "web.apps") == ["web.apps", "store.apps", "debug.apps"])
        #expect(clients.trialOrder(preferring: "someone-elses.apps") == ["store.apps", "debug.apps", "web.apps"])
    }

    @Test("cached client IDs are read again only after their lifetime: a rotated secret is picked up, a fresh one is not reread")
    func clientIDLifetime() async throws {
        let store = InMemorySecretStore()
        _ = try await store.createSecret(name: "Google-OAuth-Client-ID", value: "old.apps", tags: [:], clientRequestToken: "t1")
        let kept = CachedGoogleClients(secrets: store, secretID: "Google-OAuth-Client-ID", lifetime: .seconds(3600))
        let expiring = CachedGoogleClients(secrets: store, secretID: "Google-OAuth-Client-ID", lifetime: .zero)
        #expect(try await kept.value().ids == ["old.apps"])
        #expect(try await expiring.value().ids == ["old.apps"])
        _ = try await store.putSecretValue(name: "Google-OAuth-Client-ID", value: #"{"client_ids": ["old.apps", "new.apps"]}"#, clientRequestToken: "t2")
        #expect(try await kept.value().ids == ["old.apps"])
        #expect(try await expiring.value().ids == ["old.apps", "new.apps"])
    }

    @Test("the summary is one Embedded Metric Format line with every count")
    func emf() throws {
        var summary = RefreshSummary()
        summary.scanned = 10
        summary.due = 4
        summary.refreshed = 3
        summary.transient_failures = 1
        summary.rejected = 2
        summary.duration_ms = 1234
        let line = summary.embeddedMetricFormat(function: "token-refresh", timestamp: Date(timeIntervalSince1970: 1_800_000_000))
        #expect(!line.contains("\n"))
        let json = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(json["Scanned"] as? Int == 10 && json["Refreshed"] as? Int == 3 && json["TransientFailures"] as? Int == 1 && json["DurationMs"] as? Int == 1234)
        #expect(json["Rejected"] as? Int == 2)
        let aws = try #require(json["_aws"] as? [String: Any])
        #expect(aws["Timestamp"] as? Int == 1_800_000_000_000)
        let directives = try #require(aws["CloudWatchMetrics"] as? [[String: Any]])
        #expect(directives.first?["Namespace"] as? String == "PayPulse/TokenRefresh")
        #expect((directives.first?["Metrics"] as? [[String: Any]])?.count == 10)
    }
}
