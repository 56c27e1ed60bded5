import Foundation
import Logging
import PayPulseAWS
import PayPulseDomain
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// The outbox's rules on an in-memory store and bus: which change records which event, that
/// a failed put leaves the event pending with its id, that a partly failed put leaves only
/// what failed, and that a failing spell of refreshes is reported once.
@Suite("Lifecycle events: the outbox kept with the grant")
struct LifecycleOutboxTests {
    /// A bus that keeps what it accepts and refuses what it is told to.
    final class Bus: LifecycleEventBus, @unchecked Sendable {
        private let lock = NSLock()
        private var kept: [LifecycleBusEntry] = []
        private var down = false
        private var refusing: Set<String> = []

        var maxEntriesPerPut: Int { 10 }
        var entries: [LifecycleBusEntry] { lock.withLock { kept } }
        var types: [String] { entries.map(\.detailType) }
        func fail(_ failing: Bool) { lock.withLock { down = failing } }
        func refuse(_ detailType: String) { lock.withLock { _ = refusing.insert(detailType) } }

        func put(_ entries: [LifecycleBusEntry]) async throws(LifecycleBusFailure) -> [LifecycleBusFailure?] {
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
    func vault(now: @escaping @Sendable () -> Date = { Date() }) -> TokenVault {
        TokenVault(grants: grants, now: now, events: LifecyclePublisher(bus: bus, metrics: DiscardedMetrics(), logger: quiet, now: now))
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
}
