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
        func unrefuseAll() { lock.withLock { refusing.removeAll() } }

        func put(_ entries: [LifecycleBusEntry], within budget: Duration) async throws(LifecycleBusFailure) -> [LifecycleBusFailure?] {
            if lock.withLock({ given.append(budget); return hanging }) {
                try? await Task.sleep(for: budget)
                throw LifecycleBusFailure(code: "timed out", refused: false)
            }
            let answers: [LifecycleBusFailure?]? = lock.withLock {
                if down { return nil }
                return entries.map { entry in
                    if refusing.contains(entry.detailType) { return LifecycleBusFailure(code: "InvalidArgument", refused: true) }
                    kept.append(entry)
                    return nil
                }
            }
            guard let answers else { throw LifecycleBusFailure(code: "unreachable", refused: false) }
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
        #expect(bus.budgets.dropFirst(before).allSatisfy { $0 <= .milliseconds(300) }, "the put's budget is what is left of the request's")
        #expect(bus.budgets.count - before == 1, "a put that failed as a whole ends the attempt: the second batch waits")
        #expect(try await vault.current(of: user)?.tokenSet.lifecycle?.pending.count == 12, "the change stored, every event still pending")
        bus.hang(false)
        #expect(try await vault.flush(user))
        #expect(bus.types.count == 12 && bus.types.last == "Gmail Reconnected")
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
