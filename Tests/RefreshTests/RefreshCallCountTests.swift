import Foundation
import PayPulseAWS
import PayPulseDomain
import PayPulsePorts
import PayPulseTestSupport
import Testing

@Suite("A refresh costs two Secrets Manager calls, counted on moto")
struct RefreshCallCountTests {
    /// The shared moto behind a counting proxy, and a fixture whose token sets live there.
    private static func counted() async throws -> (FaultProxy, AWSSecretStore, RefreshFixture) {
        let moto = try await MotoServer.shared()
        let proxy = try FaultProxy(upstream: moto.endpoint, dialect: .aws)
        let secrets = AWSSecretStore(client: try AWSTestClients.secretsManager(endpoint: proxy.url))
        let users = DynamoDBUserDirectory(client: try AWSTestClients.dynamoDB(endpoint: moto.endpoint), table: "paypulse-users")
        let fixture = try RefreshFixture(StoreFactory.Stores(secrets: secrets, users: users))
        return (proxy, secrets, fixture)
    }

    @Test("read, put (the compare-and-swap): no tag write when only the access token changes, and the listing still tells the new expiry")
    func twoCalls() async throws {
        let (proxy, secrets, fixture) = try await Self.counted()
        defer { proxy.stop(); fixture.google.stop() }
        // A grant Google verified an hour ago: its token lifetime is Google's.
        try await fixture.seed(0, expiresIn: 3599)
        let before = try await secrets.describeSecret(name: fixture.user(0).secretName).tags

        proxy.plan.reset()
        let refreshed = try await fixture.refresher(windowSeconds: 86_400).refreshIfDue(fixture.user(0), logger: fixture.logs.logger)
        guard case .refreshed(let renewed) = refreshed else {
            Issue.record("expected a refresh, got \(refreshed)")
            return
        }
        #expect(proxy.plan.operationCounts == ["GetSecretValue": 1, "PutSecretValue": 1])

        // The tags were left as they were; the listing's last change plus the tagged
        // lifetime is the new expiry, so a run with the default window finds nothing due.
        let page = try await secrets.listSecrets(namePrefix: fixture.user(0).secretName, includePlannedDeletion: false, maxResults: 10, nextToken: nil)
        let listed = try #require(page.secrets.first)
        #expect(listed.tags == before)
        let implied = try #require(TokenSetTags.impliedExpiry(from: listed.tags, lastChanged: listed.lastChangedDate) as Date?)
        #expect(abs(implied.timeIntervalSince(renewed.expiresAt)) < 5)
        let run = try await fixture.job().run(deadline: nil, logger: fixture.logs.logger)
        #expect(run.scanned == 1 && run.due == 0)
    }

    @Test("a write that changes more than the token (status, verification, lifetime) still tags")
    func statusChangesTag() async throws {
        let (proxy, secrets, fixture) = try await Self.counted()
        defer { proxy.stop(); fixture.google.stop() }
        // Stored with the app's 60 s token: the first refresh changes the lifetime, so it tags.
        try await fixture.seed(0, expiresIn: 60)
        proxy.plan.reset()
        _ = try await fixture.refresher().refreshIfDue(fixture.user(0), logger: fixture.logs.logger)
        #expect(proxy.plan.count(of: "TagResource") == 1)
        let description = try await secrets.describeSecret(name: fixture.user(0).secretName)
        var tags = description.tags
        #expect(tags.removeValue(forKey: SecretsManagerGrantStore.versionTag) == description.currentVersion?.rawValue, "stamped with the value's version")
        #expect(tags == TokenSetTags.tags(for: try await fixture.current(0)))

        // A revoked grant is marked, and the mark is tagged.
        let dead = try await fixture.seed(1, expiresIn: 30)
        fixture.google.invalidateGrant(refreshToken: dead)
        proxy.plan.reset()
        #expect(try await fixture.refresher().refreshIfDue(fixture.user(1), logger: fixture.logs.logger) == .revoked)
        #expect(proxy.plan.count(of: "TagResource") == 1)
        #expect(try await secrets.describeSecret(name: fixture.user(1).secretName).tags[TokenSetTags.status] == "revoked")
    }
}
