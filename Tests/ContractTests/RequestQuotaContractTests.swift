import Foundation
import Logging
import PayPulseAWS
import PayPulseEmbedded
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// The contract every ``RequestQuota`` keeps (in memory, embedded, DynamoDB on moto): at most
/// the rule's limit in any span, a refusal that writes nothing and says when room comes, users
/// apart from each other, and a count that concurrent takes cannot push past the limit.
@Suite("Request quotas: at most the limit in any window, per user, under concurrency")
struct RequestQuotaContractTests {
    /// One store of quotas, made fresh per test with a rule.
    struct Store: Sendable, CustomStringConvertible {
        let description: String
        let make: @Sendable (QuotaRule) async throws -> any RequestQuota

        static let all = [
            Store(description: "in-memory") { InMemoryRequestQuota(rule: $0) },
            Store(description: "embedded") { rule in
                let directory = FileManager.default.temporaryDirectory.appendingPathComponent("paypulse-quota-\(UUID().uuidString)").path
                let database = try EmbeddedDatabase(stateDirectory: directory, logger: Logger(label: "quota") { _ in SwiftLogNoOpLogHandler() })
                return EmbeddedRequestQuota(database: database, rule: rule)
            },
            Store(description: "dynamodb-on-moto") { rule in
                let client = try AWSTestClients.dynamoDB(endpoint: try await MotoServer.shared().endpoint)
                let quota = DynamoDBRequestQuota(client: client, table: "quotas-\(UUID().uuidString.lowercased())", rule: rule)
                try await quota.createTableIfNeeded()
                return quota
            },
        ]
    }

    @Test("the limit's takes in a window are taken, the next refused until the oldest leaves it", arguments: Store.all)
    func limitThenRefusedUntilTheOldestLeaves(_ store: Store) async throws {
        let quota = try await store.make(QuotaRule(limit: 3, span: 60))
        let start = 1_800_000_000.0
        for offset in [0.0, 10, 20] { #expect(try await quota.take(for: "u1", at: start + offset) == .taken) }
        #expect(try await quota.take(for: "u1", at: start + 30) == .exhausted(retryAfter: 30))
        #expect(try await quota.take(for: "u1", at: start + 59.5) == .exhausted(retryAfter: 1))
        // The refusals wrote nothing: the first use leaves the window at start + 60, and one take fits.
        #expect(try await quota.take(for: "u1", at: start + 60.5) == .taken)
        #expect(try await quota.take(for: "u1", at: start + 61) == .exhausted(retryAfter: 9))
    }

    @Test("a window across a minute's boundary gives no second allowance", arguments: Store.all)
    func noSecondAllowanceAcrossABoundary(_ store: Store) async throws {
        let quota = try await store.make(QuotaRule(limit: 2, span: 60))
        let boundary = 1_800_000_040.0  // a whole minute since 1970
        #expect(try await quota.take(for: "u1", at: boundary - 1) == .taken)
        #expect(try await quota.take(for: "u1", at: boundary - 0.5) == .taken)
        #expect(try await quota.take(for: "u1", at: boundary + 0.5) == .exhausted(retryAfter: 59))
    }

    @Test("each user has an allowance of their own", arguments: Store.all)
    func usersAreApart(_ store: Store) async throws {
        let quota = try await store.make(QuotaRule(limit: 1, span: 60))
        let now = 1_800_000_000.0
        #expect(try await quota.take(for: "storm", at: now) == .taken)
        #expect(try await quota.take(for: "storm", at: now + 1) == .exhausted(retryAfter: 59))
        #expect(try await quota.take(for: "calm", at: now + 1) == .taken)
        #expect(try await quota.take(for: "calm/with 'quotes'; DROP", at: now + 1) == .taken)
    }

    @Test("forty concurrent takes of one user: exactly the limit taken, the rest refused", arguments: Store.all)
    func concurrentTakesStopAtTheLimit(_ store: Store) async throws {
        let quota = try await store.make(QuotaRule(limit: 5, span: 60))
        let now = 1_800_000_000.0
        let decisions = try await withThrowingTaskGroup(of: QuotaDecision.self) { group in
            for index in 0..<40 { group.addTask { try await quota.take(for: "u1", at: now + Double(index) / 1000) } }
            return try await group.reduce(into: [QuotaDecision]()) { $0.append($1) }
        }
        let taken = decisions.filter { $0 == .taken }.count
        // A DynamoDB take that loses every swap is refused, so fewer may be taken under a
        // flood; never more. The stores that write in one transaction take exactly the limit.
        #expect(taken <= 5 && taken >= 1, "\(taken) taken")
        if store.description != "dynamodb-on-moto" { #expect(taken == 5) }
    }

    @Test("an empty user id is refused as invalid_request", arguments: Store.all.filter { $0.description != "in-memory" })
    func emptyUserIsRefused(_ store: Store) async throws {
        let quota = try await store.make(QuotaRule(limit: 1))
        await expectStoreError(.invalidRequest) { try await quota.take(for: "", at: 1_800_000_000) }
    }
}
