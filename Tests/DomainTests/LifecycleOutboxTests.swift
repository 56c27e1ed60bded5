import Foundation
import Logging
import PayPulseAWS
import PayPulseDomain
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// The outbox's rules on an in-memory store and bus: which change records which event, that
/// a failed put leaves the event pending with its id, that a partly failed put leaves only
/// what failed, that a failing spell of refreshes is reported once, that a hanging bus holds
/// a request no longer than its budget, and that a bus refusing for long leaves the grant's
/// outbox within its bound.
@Suite("Lifecycle events: the outbox kept with the grant")
struct LifecycleOutboxTests {
    /// A bus that keeps what it accepts and refuses what it is told to.
    final class Bus: LifecycleEventBus, @unchecked Sendable {
        private let lock = NSLock()
        private var kept: [LifecycleBusEntry] = []
        private var down = false
        private var hanging = false
        private var refusing: Set<String> = []
        private var refusingWhole = false
        private var lostAnswers = 0
        private var given: [Duration] = []

        var maxEntriesPerPut: Int { 10 }
        var entries: [LifecycleBusEntry] { lock.withLock { kept } }
        var types: [String] { entries.map(\.detailType) }
        /// The budget of each put so far.
        var budgets: [Duration] { lock.withLock { given } }
        func fail(_ failing: Bool) { lock.withLock { down = failing } }
        /// Every put waits out its whole budget, then fails (a bus that never answers, given up on).
        func hang(_ hangs: Bool) { lock.withLock { hanging = hangs } }
        func refuse(_ detailType: String) { lock.withLock { _ = refusing.insert(detailType) } }
        /// Every put refused as a whole (a wrong policy, a deleted bus), or not.
        func refuseWhole(_ refuses: Bool) { lock.withLock { refusingWhole = refuses } }
        /// The next `count` puts land, but their answers are lost (a put that outlasted its time-out).
        func loseAnswers(_ count: Int) { lock.withLock { lostAnswers = count } }
        func unrefuseAll() { lock.withLock { refusing.removeAll() } }

        func put(_ entries: [LifecycleBusEntry], within budget: Duration) async throws(LifecycleBusFailure) -> [LifecycleBusFailure?] {
            if lock.withLock({ given.append(budget); return hanging }) {
                try? await Task.sleep(for: budget)
                throw LifecycleBusFailure(code: "timed out", refused: false)
            }
            var lost = false
            let answers: [LifecycleBusFailure?]? = lock.withLock {
                if down { return nil }
                if refusingWhole { return [] }
                if lostAnswers > 0 { (lostAnswers, lost) = (lostAnswers - 1, true) }
                return entries.map { entry in
                    if refusing.contains(entry.detailType) { return LifecycleBusFailure(code: "InvalidArgument", refused: true) }
                    kept.append(entry)
                    return nil
                }
            }
            guard let answers else { throw LifecycleBusFailure(code: "unreachable", refused: false) }
            if answers.isEmpty { throw LifecycleBusFailure(code: "AccessDeniedException", refused: true) }
            if lost { throw LifecycleBusFailure(code: "timed out", refused: false) }
            return answers
        }
    }

    let bus = Bus()
    let secrets = InMemorySecretStore()
    let quiet = Logger(label: "outbox") { _ in SwiftLogNoOpLogHandler() }
    var grants: any GrantStore { SecretsManagerGrantStore(secrets) }
    let metrics = CollectingMetrics()
    func vault(
        now: @escaping @Sendable () -> Date = { Date() }, requestBudget: Duration = LifecyclePublisher.defaultRequestBudget,
        maxPending: Int = LifecyclePublisher.defaultMaxPending
    ) -> TokenVault {
        let publisher = LifecyclePublisher(bus: bus, metrics: metrics, logger: quiet, requestBudget: requestBudget, maxPending: maxPending, now: now)
        return TokenVault(grants: grants, now: now, events: publisher)
    }
    func tokens(_ refreshToken: String?, subject: String) -> IncomingTokens {
        IncomingTokens(accessToken: "ya29.x", refreshToken: refreshToken, scopes: [GmailScopes.readonly], subject: subject)
    }
    func details() -> [[String: Any]] {
        bus.entries.compactMap { (try? JSONSerialization.jsonObject(with: Data($0.detail.utf8))) as? [String: Any] }
    }

    @Test("connect, the same token again (nothing), a new token, another account: one event each, sequences increasing")
    func storeEvents() async throws {
        let user = UserID("outbox-store")!, vault = vault()
        _ = try await vault.store(tokens("1//a", subject: "1"), for: user)
        _ = try await vault.store(tokens(nil, subject: "1"), for: user)
        _ = try await vault.store(tokens("1//b", subject: "1"), for: user)
        _ = try await vault.store(tokens("1//c", subject: "2"), for: user)
        #expect(bus.types == ["Gmail Connected", "Gmail Reconnected", "Gmail Account Switched"])
        let sequences = details().compactMap { $0["sequence"] as? Int }
        #expect(sequences.count == 3 && sequences == sequences.sorted() && Set(sequences).count == 3)
        #expect(details().map { $0["google_sub"] as? String } == ["1", "1", "2"])
        #expect(bus.entries.allSatisfy { !$0.detail.contains("1//") && !$0.detail.contains("ya29") }, "no token in any event")
        let stored = try #require(try await vault.current(of: user)?.tokenSet.lifecycle)
        #expect(stored.pending.isEmpty && stored.lastSequence == Int64(sequences.last ?? 0))
        #expect(try await grants.state(of: user.rawValue).attributes[TokenSetTags.outbox] == "empty")
    }

    @Test("a bus down leaves the event pending, listed for the sweep; the next write publishes it first, with its id")
    func pendingUntilNextWrite() async throws {
        let user = UserID("outbox-pending")!, vault = vault()
        bus.fail(true)
        _ = try await vault.store(tokens("1//a", subject: "1"), for: user)
        let pending = try #require(try await vault.current(of: user)?.tokenSet.lifecycle?.pending)
        #expect(pending.map(\.kind) == [.connected])
        #expect(TokenSetTags.hasPendingEvents(try await grants.state(of: user.rawValue).attributes))
        #expect(GrantDuePolicy.refresh(RefreshSettings()).dueDate(try await grants.state(of: user.rawValue).attributes, Date()) == Date(timeIntervalSince1970: 0))
        bus.fail(false)
        _ = try await vault.store(tokens("1//b", subject: "1"), for: user)
        #expect(bus.types == ["Gmail Connected", "Gmail Reconnected"])
        #expect(bus.entries.first?.id == pending.first?.eventID, "the same id as recorded")
        #expect(try await vault.current(of: user)?.tokenSet.lifecycle?.pending.isEmpty == true)
    }

    @Test("a put that fails one entry leaves that one alone pending")
    func partialFailure() async throws {
        let user = UserID("outbox-partial")!, vault = vault()
        bus.fail(true)
        _ = try await vault.store(tokens("1//a", subject: "1"), for: user)
        _ = try await vault.store(tokens("1//b", subject: "2"), for: user)
        bus.fail(false)
        bus.refuse("Gmail Account Switched")
        #expect(try await vault.flush(user))
        #expect(bus.types == ["Gmail Connected"])
        #expect(try await vault.current(of: user)?.tokenSet.lifecycle?.pending.map(\.kind) == [.accountSwitched])
    }

    @Test("a disconnect whose event cannot go keeps the grant, revoked; a reconnect over it is a connection after a disconnect")
    func disconnectKeptUntilPublished() async throws {
        let user = UserID("outbox-disconnect")!, vault = vault()
        _ = try await vault.store(tokens("1//a", subject: "1"), for: user)
        bus.fail(true)
        try await vault.disconnect(user, recoveryWindowDays: 7)
        let kept = try #require(try await vault.current(of: user)?.tokenSet)
        #expect(kept.status == .revoked && kept.lifecycle?.deleteAfterPublishDays == 7)
        #expect(try await vault.connectionState(of: user).isConnected == false)
        bus.fail(false)
        let result = try await vault.store(tokens("1//b", subject: "1"), for: user)
        #expect(result.outcome == .firstConnection && result.tokenSet.lifecycle?.deleteAfterPublishDays == nil)
        #expect(bus.types == ["Gmail Connected", "Gmail Disconnected", "Gmail Connected"])
        #expect(details().last?["previous_status"] as? String == "disconnected")
        #expect(try await grants.state(of: user.rawValue).isScheduledForDeletion == false, "the reconnect stands")
    }

    @Test("a disconnect whose own event the bus refuses, though it takes the one before: the grant waits, its event pending")
    func disconnectRefusedAlone() async throws {
        let user = UserID("outbox-refused")!, vault = vault()
        bus.fail(true)
        _ = try await vault.store(tokens("1//a", subject: "1"), for: user)
        bus.fail(false)
        bus.refuse("Gmail Disconnected")
        try await vault.disconnect(user, recoveryWindowDays: 7)
        #expect(bus.types == ["Gmail Connected"])
        #expect(try await grants.state(of: user.rawValue).isScheduledForDeletion == false, "not deleted before its event is out")
        #expect(try await vault.current(of: user)?.tokenSet.lifecycle?.pending.map(\.kind) == [.disconnected])
    }

    @Test("refreshes failing for now: the spell's start is noted, Refresh Failing once past the span, and a success starts over")
    func refreshFailing() async throws {
        let user = UserID("outbox-failing")!, google = InMemoryGoogleOAuth()
        let clock = MovingClock(), vault = vault(now: { clock.now })
        google.addGrant("1//a", subject: "1", email: nil)
        _ = try await vault.store(IncomingTokens(accessToken: "ya29.x", refreshToken: "1//a", expiresIn: 60, scopes: [GmailScopes.readonly], subject: "1"), for: user)
        let refresher = TokenRefresher(vault: vault, google: google, clients: GoogleClients(ids: [google.clientID]), windowSeconds: 900, now: { clock.now })
        google.set("1//a", .unavailable)
        for _ in 0..<4 {
            _ = try await refresher.refreshIfDue(user, force: true, logger: quiet)
            clock.advance(by: LifecyclePublisher.defaultFailingSpan / 2 + 1)
        }
        #expect(bus.types == ["Gmail Connected", "Gmail Refresh Failing"], "reported once, past the span")
        #expect(details().last?["reason"] as? String == "refresh_failing" && details().last?["status"] as? String == "connected")
        google.addGrant("1//a", subject: "1", email: nil)
        #expect(try await refresher.refreshIfDue(user, force: true, logger: quiet) != .conflict)
        #expect(try await vault.current(of: user)?.tokenSet.lifecycle?.failingSince == nil)
    }

    @Test("a hanging bus: the store answers after one short attempt however much is pending, and the next read publishes it all")
    func hangingBusHoldsNoRequest() async throws {
        let user = UserID("outbox-hanging")!, vault = vault(requestBudget: .milliseconds(300))
        bus.fail(true)
        for index in 0..<11 { _ = try await vault.store(tokens("1//h\(index)", subject: "1"), for: user) }  // two puts' worth pending
        bus.fail(false)
        bus.hang(true)
        let before = bus.budgets.count, started = ContinuousClock.now
        _ = try await vault.store(tokens("1//h-last", subject: "1"), for: user)
        let took = ContinuousClock.now - started
        #expect(took < .seconds(1), "the store waited \(took) for a hanging bus")
        let budgets = bus.budgets.dropFirst(before)
        #expect(budgets.reduce(.zero, +) <= .milliseconds(300), "each put gets what is left of the request's budget: \(budgets)")
        #expect(try await vault.current(of: user)?.tokenSet.lifecycle?.pending.count == 12, "the change stored, every event still pending")
        bus.hang(false)
        #expect(try await vault.flush(user))
        #expect(bus.types.count == 12 && bus.types.last == "Gmail Reconnected")
        #expect(try await vault.current(of: user)?.tokenSet.lifecycle?.pending.isEmpty == true)
    }

    @Test("a put whose answer was lost leaves its batch pending, and the newer batch, the latest state, goes in the same attempt")
    func lostAnswerKeepsNoBatchWaiting() async throws {
        let user = UserID("outbox-lost")!, vault = vault()
        bus.fail(true)
        for index in 0..<12 { _ = try await vault.store(tokens("1//l\(index)", subject: "1"), for: user) }
        bus.fail(false)
        let pending = try #require(try await vault.current(of: user)?.tokenSet.lifecycle?.pending)
        bus.loseAnswers(1)
        #expect(try await vault.flush(user))
        let left = try #require(try await vault.current(of: user)?.tokenSet.lifecycle?.pending)
        #expect(left.map(\.eventID) == pending.prefix(10).map(\.eventID), "the first batch, unanswered, stays pending; the second was taken")
        #expect(bus.entries.last?.id == pending.last?.eventID, "the latest state went out in the same attempt")
        #expect(try await vault.flush(user))
        #expect(try await vault.current(of: user)?.tokenSet.lifecycle?.pending.isEmpty == true)
        #expect(Set(bus.entries.map(\.id)) == Set(pending.map(\.eventID)), "the lost put landed, and was put again under the same ids")
    }

    @Test("a put the bus refuses as a whole ends the attempt: the next batch would be refused as well")
    func wholeRefusalEndsTheAttempt() async throws {
        let user = UserID("outbox-refused-whole")!, vault = vault()
        bus.fail(true)
        for index in 0..<12 { _ = try await vault.store(tokens("1//w\(index)", subject: "1"), for: user) }
        bus.fail(false)
        bus.refuseWhole(true)
        let before = bus.budgets.count, refusedBefore = metrics.total("Refused")
        #expect(try await vault.flush(user))
        #expect(bus.budgets.count - before == 1, "one put, refused: the second batch is not put")
        #expect(metrics.total("Refused") - refusedBefore == 10, "the refused batch counted for the alarm")
        bus.refuseWhole(false)
        #expect(try await vault.flush(user))
        #expect(bus.entries.count == 12 && bus.types.last == "Gmail Reconnected")
    }

    @Test("the refresh run's sweep gives each put its own budget: a hanging first batch leaves the second its time")
    func sweepBudgetForEachPut() async throws {
        let user = UserID("outbox-sweep-each")!, google = InMemoryGoogleOAuth()
        // A bound of a hundred: ten puts' worth of sweep for a grant, of which its two batches use two.
        let publisher = LifecyclePublisher(bus: bus, metrics: metrics, logger: quiet, sweepBudget: .milliseconds(400), maxPending: 100)
        #expect(publisher.grantSweepBudget == .seconds(4))
        let vault = TokenVault(grants: grants, events: publisher)
        bus.fail(true)
        for index in 0..<12 {
            google.addGrant("1//e\(index)", subject: "1", email: nil)
            _ = try await vault.store(tokens("1//e\(index)", subject: "1"), for: user)
        }
        bus.fail(false)
        bus.hang(true)
        let refresher = TokenRefresher(vault: vault, google: google, clients: GoogleClients(ids: [google.clientID]), windowSeconds: 900)
        let job = RefreshJob(grants: grants, refresher: refresher, settings: RefreshSettings(stopMarginSeconds: 1), userPrefix: user.rawValue)
        let before = bus.budgets.count
        _ = try await job.run(deadline: ContinuousClock.now + .seconds(60), logger: quiet)
        let sweeps = Array(bus.budgets.dropFirst(before))
        #expect(sweeps.count == 2 && sweeps.allSatisfy { $0 <= .milliseconds(400) }, "two puts, each within its own budget: \(sweeps)")
        #expect(sweeps.last.map { $0 > .milliseconds(300) } == true, "the second batch was not left what the first one's hang spared: \(sweeps)")
        bus.hang(false)
        _ = try await job.run(deadline: ContinuousClock.now + .seconds(60), logger: quiet)
        #expect(bus.entries.count == 12 && bus.types.last == "Gmail Reconnected")
        #expect(try await vault.current(of: user)?.tokenSet.lifecycle?.pending.isEmpty == true)
    }

    @Test("the refresh run's sweep publishes within its own budget, never past the run's deadline")
    func sweepWithinDeadline() async throws {
        let user = UserID("outbox-sweep")!, google = InMemoryGoogleOAuth()
        let publisher = LifecyclePublisher(bus: bus, metrics: metrics, logger: quiet, sweepBudget: .seconds(5))
        let vault = TokenVault(grants: grants, events: publisher)
        google.addGrant("1//s", subject: "1", email: nil)
        bus.fail(true)
        _ = try await vault.store(tokens("1//s", subject: "1"), for: user)
        bus.fail(false)
        bus.hang(true)
        let refresher = TokenRefresher(vault: vault, google: google, clients: GoogleClients(ids: [google.clientID]), windowSeconds: 900)
        let job = RefreshJob(grants: grants, refresher: refresher, settings: RefreshSettings(stopMarginSeconds: 1), userPrefix: user.rawValue)
        let before = bus.budgets.count
        _ = try await job.run(deadline: ContinuousClock.now + .seconds(2), logger: quiet)
        let sweeps = Array(bus.budgets.dropFirst(before))
        #expect(!sweeps.isEmpty && sweeps.allSatisfy { $0 <= .seconds(2) }, "the sweep's budget ends by the deadline: \(sweeps)")
        bus.hang(false)
        _ = try await job.run(deadline: ContinuousClock.now + .seconds(60), logger: quiet)
        #expect(try #require(bus.budgets.last) > .seconds(4), "with time to spare, the sweep's own budget (what is left of it at the put)")
        #expect(bus.types == ["Gmail Connected"])
    }

    @Test("a bus refusing for long: the outbox keeps the newest events within its bound, the dropped counted; the latest state arrives in order")
    func boundedOutbox() async throws {
        let user = UserID("outbox-bounded")!, vault = vault(maxPending: 5)
        bus.refuse("Gmail Connected")
        bus.refuse("Gmail Reconnected")
        for index in 0..<12 { _ = try await vault.store(tokens("1//b\(index)", subject: "1"), for: user) }
        let stored = try #require(try await vault.current(of: user)?.tokenSet.lifecycle)
        #expect(stored.pending.count == 5, "at most the bound pending")
        #expect(stored.pending.map(\.sequence) == stored.pending.map(\.sequence).sorted() && stored.pending.last?.sequence == stored.lastSequence)
        #expect(stored.pending.allSatisfy { $0.kind == .reconnected }, "the oldest (the connection among them) dropped first")
        #expect(metrics.total("Dropped") == 7, "each dropped event counted once")
        // The bound holds the document's size whatever the number of changes.
        let size = try await grants.read(user.rawValue).value.utf8.count
        for index in 12..<40 { _ = try await vault.store(tokens("1//b\(index)", subject: "1"), for: user) }
        #expect(try await grants.read(user.rawValue).value.utf8.count <= size + 64)
        #expect(metrics.total("Dropped") == 35)

        // The bus takes them again: the newest five arrive, in order, the last one the latest change.
        let latest = try #require(try await vault.current(of: user)?.tokenSet.lifecycle?.pending.last)
        bus.unrefuseAll()
        #expect(try await vault.flush(user))
        let sequences = details().compactMap { $0["sequence"] as? Int }
        #expect(sequences.count == 5 && sequences == sequences.sorted())
        #expect(bus.entries.last?.id == latest.eventID && details().last?["status"] as? String == "connected")
    }
}
