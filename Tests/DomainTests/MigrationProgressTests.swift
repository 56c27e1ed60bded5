import Foundation
import PayPulseAWS
import PayPulseDomain
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// A long migration: what it tells while it runs, how it stops on request and resumes from
/// the cursor it gives, and how many copies it has in flight and writes per second.
@Suite("Migration progress, resume and pace")
struct MigrationProgressTests {
    /// A target that counts the creates in flight and their times, and can ask the run to stop
    /// after a given number of creates.
    private final class Watch: @unchecked Sendable {
        private let lock = NSLock()
        private var inFlight = 0
        private(set) var maxInFlight = 0
        private(set) var created: [String] = []
        private(set) var times: [ContinuousClock.Instant] = []
        var onCreate: @Sendable (Int) -> Void = { _ in }
        /// How long a create takes.
        var delay: Duration = .milliseconds(5)

        func begin() {
            lock.withLock { inFlight += 1; maxInFlight = max(maxInFlight, inFlight) }
        }

        func end(_ user: String) {
            let count = lock.withLock { inFlight -= 1; created.append(user); times.append(.now); return created.count }
            onCreate(count)
        }
    }

    private struct WatchedStore: GrantStore {
        let base: any GrantStore
        let watch: Watch
        var writesAttributesWithValue: Bool { base.writesAttributesWithValue }
        func state(of user: String) async throws -> GrantState { try await base.state(of: user) }
        func read(_ user: String) async throws -> GrantValue { try await base.read(user) }
        func create(_ user: String, value: String, attributes: [String: String]) async throws -> GrantVersion {
            watch.begin()
            try await Task.sleep(for: watch.delay)
            defer { watch.end(user) }
            return try await base.create(user, value: value, attributes: attributes)
        }
        func replace(_ user: String, expected: GrantVersion, value: String, attributes: [String: String]?) async throws -> GrantVersion {
            try await base.replace(user, expected: expected, value: value, attributes: attributes)
        }
        func mark(_ user: String, attributes: [String: String], expected: GrantVersion?) async throws {
            try await base.mark(user, attributes: attributes, expected: expected)
        }
        func delete(_ user: String, expected: GrantVersion?, recoveryWindowDays: Int) async throws -> Date {
            try await base.delete(user, expected: expected, recoveryWindowDays: recoveryWindowDays)
        }
        func restore(_ user: String) async throws { try await base.restore(user) }
        func list(userPrefix: String, includeDeleted: Bool, cursor: String?, limit: Int) async throws -> GrantPage {
            try await base.list(userPrefix: userPrefix, includeDeleted: includeDeleted, cursor: cursor, limit: limit)
        }
        func users(with attribute: IndexedGrantAttribute, equalTo value: String) async throws -> [String] { try await base.users(with: attribute, equalTo: value) }
    }

    private func source(_ count: Int) async throws -> (SecretsManagerGrantStore, [String]) {
        let source = SecretsManagerGrantStore(InMemorySecretStore())
        let users = (0..<count).map { String(format: "r-%03d", $0) }
        for user in users { try await source.create(user, value: #"{"access_token":"ya29.\#(user)"}"#, attributes: ["n": user]) }
        return (source, users)
    }

    @Test("a stop request ends the run with the cursor of the page in flight; resuming from it skips the pages before and completes")
    func stopAndResume() async throws {
        let (source, users) = try await source(250)
        let target = SecretsManagerGrantStore(InMemorySecretStore())
        let watch = Watch()
        let progress = MigrationProgress()
        watch.onCreate = { if $0 == 120 { progress.stop() } }
        let migration = GrantMigration(from: source, to: WatchedStore(base: target, watch: watch), concurrency: 4)

        let interrupted = try await #require(throws: GrantMigration.Interrupted.self) { try await migration.run(progress: progress) }
        let cursor = try #require(interrupted.resumeCursor)
        #expect(interrupted.report.copied >= 120 && interrupted.report.copied < 250)
        #expect(progress.snapshot.resumeCursor == cursor)
        let before = watch.created.count

        let resumed = try await migration.run(resumingFrom: cursor)
        #expect(resumed.listed == 150 && resumed.complete, "\(resumed)")
        let createdAfter = watch.created[before...]
        #expect(!createdAfter.contains { $0 < "r-100" }, "the pages before the cursor are not read again")
        for user in users { #expect(try await target.read(user).value.contains(user)) }
    }

    @Test("progress counts every grant listed and done; its line tells done, listed, rate and time left")
    func progressCounts() async throws {
        let (source, _) = try await source(30)
        let progress = MigrationProgress()
        let report = try await GrantMigration(from: source, to: SecretsManagerGrantStore(InMemorySecretStore())).run(progress: progress)
        #expect(report.complete)
        let snapshot = progress.snapshot
        #expect(snapshot.listed == 30 && snapshot.done == 30 && snapshot.listingDone && snapshot.resumeCursor == nil)
        let line = MigrationProgress.Snapshot(listed: 400, done: 100, listingDone: false, resumeCursor: "c", elapsed: .seconds(10)).line
        #expect(line.contains("100 of 400 listed") && line.contains("10.0 grants/s") && line.contains("30s left") && line.contains("listing goes on"))
    }

    @Test("copies run at most `concurrency` at once, and writes stay under the rate given")
    func concurrencyAndPace() async throws {
        let (source, _) = try await source(40)
        let watch = Watch()
        watch.delay = .milliseconds(50)  // several creates overlap, 10 ms apart
        let started = ContinuousClock.now
        let report = try await GrantMigration(
            from: source, to: WatchedStore(base: SecretsManagerGrantStore(InMemorySecretStore()), watch: watch), concurrency: 4, writesPerSecond: 100
        ).run()
        #expect(report.copied == 40 && report.complete)
        #expect(watch.maxInFlight <= 4 && watch.maxInFlight >= 2, "\(watch.maxInFlight) in flight")
        // 40 creates spaced 10 ms apart take at least 390 ms.
        #expect(ContinuousClock.now - started >= .milliseconds(390))
    }
}
