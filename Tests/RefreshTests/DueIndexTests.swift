import Foundation
import PayPulseAWS
import PayPulseDomain
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// The DynamoDB store's due index against moto_server: it lists exactly the grants the
/// refresh job's rule makes due, follows every write, and a run reads those alone.
@Suite("DynamoDB due index: what a refresh run selects")
struct DueIndexTests {
    /// A store on a fresh table and KMS key, keyed by `settings`' rule on `now`'s clock.
    private func store(_ settings: RefreshSettings = RefreshSettings(), table: String? = nil, now: @escaping @Sendable () -> Date = { Date() })
        async throws -> (DynamoDBGrantStore, String)
    {
        let endpoint = try await MotoServer.shared().endpoint
        let kms = KMSClient(client: try AWSTestClients.jsonClient(.kms, endpoint: endpoint))
        let table = table ?? "grants-due-\(UUID().uuidString.lowercased())"
        let store = DynamoDBGrantStore(
            client: try AWSTestClients.dynamoDB(endpoint: endpoint), table: table,
            cipher: EnvelopeCipher(keys: DataKeyCache(service: kms, keyID: try await kms.createKey())), due: .refresh(settings), now: now
        )
        try await store.createTableIfNeeded()
        return (store, table)
    }

    private func tags(_ set: GmailTokenSet) -> [String: String] { TokenSetTags.tags(for: set) }

    private func tokenSet(expiresIn: TimeInterval, status: GmailTokenSet.Status = .active, verified: Bool = true, refreshToken: String? = "1//due") -> GmailTokenSet {
        let now = Date()
        return GmailTokenSet(
            accessToken: "ya29.due", refreshToken: refreshToken, expiresAt: now.addingTimeInterval(expiresIn), scope: GmailScopes.readonly,
            googleEmail: nil, verified: verified, connectedAt: now, updatedAt: now, status: status
        )
    }

    private func listed(_ store: DynamoDBGrantStore, dueBy: Date, limit: Int = 100) async throws -> [String] {
        var users: [String] = []
        var cursor: String?
        repeat {
            let page = try await store.listDue(userPrefix: "", dueBy: dueBy, cursor: cursor, limit: limit)
            users += page.grants.map(\.user)
            cursor = page.cursor
        } while cursor != nil
        return users
    }

    @Test("eager: only grants expiring within the window, or awaiting verification, are listed; every write moves the key")
    func eagerSelection() async throws {
        let (store, _) = try await store()
        let horizon = Date().addingTimeInterval(900)
        let soon = tokenSet(expiresIn: 60), later = tokenSet(expiresIn: 86_400)
        let soonVersion = try await store.create("soon", value: "v", attributes: tags(soon))
        let laterVersion = try await store.create("later", value: "v", attributes: tags(later))
        try await store.create("unverified", value: "v", attributes: tags(tokenSet(expiresIn: 86_400, verified: false)))
        try await store.create("revoked", value: "v", attributes: tags(tokenSet(expiresIn: 60, status: .revoked)))
        try await store.create("no-refresh-token", value: "v", attributes: tags(tokenSet(expiresIn: 60, refreshToken: nil)))
        #expect(try await listed(store, dueBy: horizon).sorted() == ["soon", "unverified"])

        // A refresh moves "soon" out of the window; a replace brings "later" into it.
        try await store.replace("soon", expected: soonVersion, value: "v", attributes: tags(later))
        let laterNow = try await store.replace("later", expected: laterVersion, value: "v", attributes: tags(soon))
        #expect(try await listed(store, dueBy: horizon).sorted() == ["later", "unverified"])
        // Kept attributes (`nil`) still key the write.
        try await store.replace("later", expected: laterNow, value: "v", attributes: nil)
        #expect(try await listed(store, dueBy: horizon).sorted() == ["later", "unverified"])

        // Marked revoked: out. Deleted: out until restored.
        try await store.mark("later", attributes: ["paypulse:status": "revoked", "paypulse:refreshable": "false"])
        try await store.delete("unverified", recoveryWindowDays: 7)
        #expect(try await listed(store, dueBy: horizon).isEmpty)
        try await store.restore("unverified")
        #expect(try await listed(store, dueBy: horizon) == ["unverified"])
    }

    @Test("keeping alive: grants are keyed by their last write, and listed once it is older than the interval")
    func keepAliveSelection() async throws {
        let settings = RefreshSettings(mode: .keepalive, keepAliveSeconds: 86_400)
        let now = Date()
        let (old, table) = try await store(settings, now: { now.addingTimeInterval(-2 * 86_400) })
        let (fresh, _) = try await store(settings, table: table, now: { now })
        // Both access tokens are long expired by `now`: the key is the write, not the expiry.
        try await old.create("written-two-days-ago", value: "v", attributes: tags(tokenSet(expiresIn: -172_000)))
        try await fresh.create("written-now", value: "v", attributes: tags(tokenSet(expiresIn: -3600)))
        #expect(try await listed(fresh, dueBy: settings.dueBy(now: now)) == ["written-two-days-ago"])
    }

    @Test("a migrated grant is keyed at its stored expiry (eager) or its stored write (keeping alive), not at the copy")
    func migratedGrantKeyedByItsValue() async throws {
        let now = Date()
        // Connected two hours ago, renewed by Google 50 minutes ago with the same lifetime:
        // the tags (expiry an hour ago, lifetime 3600) were not rewritten, the value was.
        let connected = now.addingTimeInterval(-7200), renewed = now.addingTimeInterval(-3000)
        var set = GmailTokenSet(
            accessToken: "ya29.migrated", refreshToken: "1//migrated", expiresAt: connected.addingTimeInterval(3600), scope: GmailScopes.readonly,
            googleEmail: nil, verified: true, connectedAt: connected, updatedAt: connected, status: .active
        )
        let staleTags = tags(set)
        set.expiresAt = renewed.addingTimeInterval(3600)
        set.updatedAt = renewed
        set.verifiedAt = renewed
        let value = try set.jsonString()

        let (source, _) = try await store(now: { renewed })
        try await source.create("migrated", value: value, attributes: staleTags)
        #expect(try await listed(source, dueBy: now.addingTimeInterval(900)) == ["migrated"])
        let (target, _) = try await store(now: { now })
        let report = try await GrantMigration(from: source, to: target).run()
        #expect(report.copied == 1 && report.complete)
        // Its token expires in 10 minutes: due within the eager window, as in the source.
        #expect(try await listed(target, dueBy: now.addingTimeInterval(900)) == ["migrated"])
        #expect(try await target.list(userPrefix: "", includeDeleted: false, cursor: nil, limit: 10).grants.first?.lastWritten.map {
            abs($0.timeIntervalSince(renewed)) < 1
        } == true)

        // Keeping alive: last written two days ago, copied now, still due.
        let settings = RefreshSettings(mode: .keepalive, keepAliveSeconds: 86_400)
        let twoDaysAgo = now.addingTimeInterval(-2 * 86_400)
        set.updatedAt = twoDaysAgo
        set.verifiedAt = twoDaysAgo
        let (idle, _) = try await store(settings, now: { twoDaysAgo })
        try await idle.create("idle", value: try set.jsonString(), attributes: tags(set))
        let (keptAlive, _) = try await store(settings, now: { now })
        #expect(try await GrantMigration(from: idle, to: keptAlive).run().complete)
        #expect(try await listed(keptAlive, dueBy: settings.dueBy(now: now)).contains("idle"))
    }

    @Test("pages walk every bucket: each due grant once, whatever the page size; a foreign cursor is refused")
    func pagesOverBuckets() async throws {
        let (store, _) = try await store()
        let users = (0..<40).map { "paged-\($0)" }
        for user in users { try await store.create(user, value: "v", attributes: tags(tokenSet(expiresIn: 60))) }
        let listed = try await listed(store, dueBy: Date().addingTimeInterval(900), limit: 3)
        #expect(listed.sorted() == users.sorted())
        await #expect(throws: StoreError.invalidRequest) {
            try await store.listDue(userPrefix: "", dueBy: Date(), cursor: "not-a-cursor", limit: 10)
        }
    }

    @Test("a run over 60 grants with 4 due reads those 4, refreshes them, and lists nothing else")
    func runReadsOnlyTheDue() async throws {
        try await StoreFactory.dynamoDB.withStores { stores in
            let fixture = try RefreshFixture(stores)
            defer { fixture.google.stop() }
            for index in 0..<60 { try await fixture.seed(index, expiresIn: index < 4 ? 60 : 7200) }
            let summary = try await fixture.job().run(deadline: nil, logger: fixture.logs.logger)
            #expect(summary.scanned == 4 && summary.due == 4 && summary.refreshed == 4 && summary.skipped == 0)
            let again = try await fixture.job().run(deadline: nil, logger: fixture.logs.logger)
            #expect(again.scanned == 0 && again.due == 0)
        }
    }
}
