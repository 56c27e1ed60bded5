import Foundation
import PayPulseDomain
import Testing

/// The checker itself, on made-up histories: it must catch each kind of broken promise,
/// or a soak with 0 violations proves nothing.
@Suite("Soak invariant checker")
struct InvariantCheckerTests {
    static let origin = ContinuousClock.now
    static let now = Date()

    static func at(_ seconds: Int) -> ContinuousClock.Instant { origin + .seconds(seconds) }

    static func sent(_ name: String, refresh: Bool = true, expiresIn: Int = 300) -> SentTokens {
        SentTokens(
            accessToken: "access-\(name)", refreshToken: refresh ? "refresh-\(name)" : nil, email: "\(name)@example.com",
            scope: "https://www.googleapis.com/auth/gmail.readonly", expiresIn: expiresIn, scriptedRevoked: false, call: name
        )
    }

    static func store(_ name: String, _ from: Int, _ to: Int, status: Int = 201, refresh: Bool = true, seeded: Bool = false) -> SoakRecord {
        var sent = sent(name, refresh: refresh)
        sent.seeded = seeded
        return SoakRecord(function: .storeTokens, user: 0, tag: name, started: at(from), ended: at(to), exitStatus: 0, httpStatus: status, sent: sent)
    }

    static func disconnect(_ from: Int, _ to: Int, status: Int = 200) -> SoakRecord {
        SoakRecord(function: .disconnect, user: 0, tag: "d\(from)", started: at(from), ended: at(to), exitStatus: 0, httpStatus: status)
    }

    static func profile(_ from: Int, _ to: Int, connected: Bool) -> SoakRecord {
        var record = SoakRecord(function: .userProfile, user: 0, tag: "p\(from)", started: at(from), ended: at(to), exitStatus: 0, httpStatus: 200)
        record.connected = connected
        return record
    }

    /// A set as `set` says, with the tags it implies unless others are given.
    static func state(_ set: GmailTokenSet, tags: [String: String]? = nil) -> FinalState {
        .present(set, tags: tags ?? TokenSetTags.tags(for: set))
    }

    /// What store-tokens stores for `name`'s refresh token: Google's answer (`google-<name>`,
    /// 3599 s; the address sent as a hint, since the fake sends no id_token, unless `email`
    /// names another), optionally refreshed or revoked.
    static func verified(_ name: String, access: String? = nil, lifetime: Int = 3599, email: String? = nil, status: GmailTokenSet.Status = .active) -> GmailTokenSet {
        let sent = sent(name)
        return GmailTokenSet(
            accessToken: access ?? "google-\(name)", refreshToken: sent.refreshToken, expiresAt: now.addingTimeInterval(Double(lifetime)),
            scope: sent.scope, googleEmail: email ?? sent.email, connectedAt: now, updatedAt: now, status: status
        )
    }

    /// A set stored exactly as `name`'s body said (the seed, or a body without a refresh
    /// token, which may have kept `keptRefreshToken`).
    static func asSent(_ name: String, refresh: Bool = true, keptRefreshToken: String? = nil, lifetime: Int = 300) -> GmailTokenSet {
        let sent = sent(name, refresh: refresh)
        return GmailTokenSet(
            accessToken: sent.accessToken, refreshToken: sent.refreshToken ?? keptRefreshToken, expiresAt: now.addingTimeInterval(Double(lifetime)),
            scope: sent.scope, googleEmail: sent.email, connectedAt: now, updatedAt: now
        )
    }

    /// Google issued `google-<name>` for `refresh-<name>`, and whatever `issued` adds.
    static func checker(_ records: [SoakRecord], issued: [String: String] = [:], invalidGrants: [String] = []) -> InvariantChecker {
        let facts = GoogleFacts(
            issued: { access, refresh in issued[access] == refresh || (refresh.hasPrefix("refresh-") && access == "google-" + refresh.dropFirst(8)) },
            invalidGrantRefreshTokens: invalidGrants
        )
        return InvariantChecker(records: records, google: facts)
    }

    static func rules(_ records: [SoakRecord], _ state: FinalState, issued: [String: String] = [:], invalidGrants: [String] = []) -> [String] {
        checker(records, issued: issued, invalidGrants: invalidGrants).violations(finalStates: [0: state]).map(\.rule)
    }

    @Test("the last 201 is accepted; either of two overlapping ones is")
    func lastWriteWins() {
        #expect(Self.rules([Self.store("a", 0, 1), Self.store("b", 2, 3)], Self.state(Self.verified("b"))).isEmpty)
        #expect(Self.rules([Self.store("a", 0, 5), Self.store("b", 2, 3)], Self.state(Self.verified("a"))).isEmpty)
        #expect(Self.rules([Self.store("a", 0, 5), Self.store("b", 2, 3)], Self.state(Self.verified("b"))).isEmpty)
    }

    @Test("an older 201 overwriting a newer one is a lost store")
    func staleValue() {
        #expect(Self.rules([Self.store("a", 0, 1), Self.store("b", 2, 3)], Self.state(Self.verified("a")))
            == ["superseded token set (a later 201 or 200 disconnect was lost)"])
    }

    @Test("a set no 201 sent is unexplained, even if a failed call sent it")
    func unexplained() {
        #expect(Self.rules([Self.store("a", 0, 1), Self.store("b", 2, 3, status: 503)], Self.state(Self.verified("b"))) == ["unexplained token set"])
        #expect(Self.rules([Self.store("a", 0, 1)], Self.state(Self.verified("a", lifetime: 3598))) == ["unexplained token set"])
    }

    @Test("a refresh token Google was shown is stored as Google answered, never as the body said")
    func verifiedAtStore() {
        #expect(Self.rules([Self.store("a", 0, 1)], Self.state(Self.asSent("a"))) == ["unexplained token set"])
        #expect(Self.rules([Self.store("a", 0, 1, seeded: true)], Self.state(Self.asSent("a"))).isEmpty)
        #expect(Self.rules([Self.store("a", 0, 1, refresh: false)], Self.state(Self.asSent("a", refresh: false))).isEmpty)
    }

    @Test("a verified set's address is Google's, or the one sent as a hint when Google names none")
    func addresses() {
        #expect(Self.rules([Self.store("a", 0, 1)], Self.state(Self.verified("a", email: "a@example.com"))).isEmpty)
        #expect(Self.rules([Self.store("s", 0, 1, seeded: true), Self.store("a", 2, 3)], Self.state(Self.verified("a", email: "s@example.com"))) == ["unexplained token set"])
        let named = InvariantChecker(
            records: [Self.store("a", 0, 1)],
            google: GoogleFacts(issued: { $0 == "google-a" && $1 == "refresh-a" }, invalidGrantRefreshTokens: [], accountEmail: { _ in "g@example.com" })
        )
        #expect(named.violations(finalStates: [0: Self.state(Self.verified("a", email: "g@example.com"))]).isEmpty)
        #expect(named.violations(finalStates: [0: Self.state(Self.verified("a"))]).map(\.rule) == ["unexplained token set"])
    }

    @Test("a body without a refresh token may keep one only if this user's earlier verified 201 sent it")
    func keptRefreshToken() {
        let history = [Self.store("a", 0, 1), Self.store("s", 2, 3, refresh: false)]
        #expect(Self.rules(history, Self.state(Self.asSent("s", refresh: false, keptRefreshToken: "refresh-a"))).isEmpty)
        #expect(Self.rules(history, Self.state(Self.asSent("s", refresh: false, keptRefreshToken: "refresh-x"))) == ["unexplained token set"])
        #expect(Self.rules(history, Self.state(Self.asSent("s", refresh: false))).isEmpty)
    }

    /// A delivery; its token issued at `issuedAt` (by default after every proof these tests make).
    static func event(
        _ kind: SentEvent.Kind, _ from: Int, _ to: Int, status: Int = 202, jti: String? = nil, issuedAt: Date = .distantFuture
    ) -> SoakRecord {
        var record = SoakRecord(function: .securityEvents, user: 0, tag: "e\(from)", started: at(from), ended: at(to), exitStatus: 0, httpStatus: status)
        record.event = SentEvent(kind: kind, jti: jti ?? "jti-\(from)", issuedAt: issuedAt, redelivery: false)
        return record
    }

    /// `verified(name)` naming user 0's Google account, as the soak's grants do.
    static func ofAccount(_ set: GmailTokenSet, status: GmailTokenSet.Status? = nil, verified: Bool = true) -> GmailTokenSet {
        var set = set
        set.googleSubject = SoakWorkload.googleSubject(0)
        set.status = status ?? set.status
        set.verified = verified
        return set
    }

    /// Google's word is recorded before the receiver looks for grants and consulted after
    /// every write, so an event over before a reconnect still judges the reconnect's set,
    /// when it is not older than the set's proof by more than the leeway.
    @Test("a reconnect's set is revoked or disabled by an event not older than its proof, whenever it ran: no lost grant, no lost word")
    func eventsAgainstProof() {
        let proved = { (status: GmailTokenSet.Status) -> FinalState in
            var set = Self.ofAccount(Self.verified("a"), status: status)
            set.verifiedAt = Self.now
            return Self.state(set)
        }
        let stale = Self.now.addingTimeInterval(-3600), fresh = Self.now.addingTimeInterval(-30)
        // Over before the store began: explains the status only within the leeway of the proof.
        #expect(Self.rules([Self.event(.tokensRevoked, 0, 1, issuedAt: stale), Self.store("a", 2, 3)], proved(.revoked)) == ["unexplained token set"])
        #expect(Self.rules([Self.event(.tokensRevoked, 0, 1, issuedAt: fresh), Self.store("a", 2, 3)], proved(.revoked)).isEmpty)
        #expect(Self.rules([Self.event(.accountDisabled, 0, 1, issuedAt: stale), Self.store("a", 2, 3)], proved(.disabled)) == ["unexplained token set"])
        #expect(Self.rules([Self.event(.accountDisabled, 0, 1, issuedAt: fresh), Self.store("a", 2, 3)], proved(.disabled)).isEmpty)
        // Any delivery, even one that failed after recording the word; but of the right kind.
        #expect(Self.rules([Self.store("a", 0, 1), Self.event(.tokensRevoked, 2, 3, status: 503)], proved(.revoked)).isEmpty)
        #expect(Self.rules([Self.store("a", 0, 1), Self.event(.tokensRevoked, 2, 3)], proved(.disabled)) == ["unexplained token set", "security event undone"])
        let enabled = Self.state(Self.ofAccount(Self.verified("a"), status: .disabled, verified: false))
        #expect(Self.rules([Self.store("a", 0, 1), Self.event(.accountDisabled, 2, 3)], enabled) == ["unexplained token set"])
        #expect(Self.rules([Self.store("a", 0, 1), Self.event(.accountDisabled, 2, 3), Self.event(.accountEnabled, 4, 5)], enabled).isEmpty)
    }

    /// store-tokens answers 400 when Google's word, read after its write, overrules it: the
    /// set it wrote stands as Google said (revoked or disabled), and never active.
    @Test("a store the word overruled wrote a set that is revoked or disabled, never active, and its 400 is expected")
    func overruledStore() {
        var overruled = Self.store("b", 2, 4, status: 400)
        overruled.overruledTo = "revoked"
        #expect(overruled.unexpected == nil)
        let refused = Self.store("b", 2, 4, status: 400)
        #expect(refused.unexpected != nil, "a 400 to a live grant the word did not overrule")
        var revoked = Self.ofAccount(Self.verified("b"), status: .revoked)
        revoked.verifiedAt = Self.now
        let history = [Self.store("a", 0, 1), Self.event(.tokensRevoked, 1, 2, issuedAt: Self.now), overruled]
        #expect(Self.rules(history, Self.state(revoked)).isEmpty)
        #expect(Self.rules([Self.store("a", 0, 1), Self.event(.tokensRevoked, 1, 2, issuedAt: Self.now), refused], Self.state(revoked))
            == ["unexplained token set"], "a refused store wrote nothing")
        var active = Self.ofAccount(Self.verified("b"))
        active.verifiedAt = Self.now
        #expect(Self.rules(history, Self.state(active)).contains("unexplained token set"))
        // Active between its write and its reading of the word, while the store ran.
        let seenDuring = Observation(user: 0, started: Self.at(3), ended: Self.at(3), state: Self.state(active), connected: true)
        #expect(Self.checker(history).violations(finalStates: [0: Self.state(revoked)], samples: [seenDuring]).isEmpty)
        #expect(Self.rules([Self.store("a", 0, 1), overruled], Self.state(revoked)).contains("store overruled without Google's word"))
        // Disabled by the word, then enabled by Google and proved by a refresh: active again.
        var disabledStore = overruled
        disabledStore.overruledTo = "disabled"
        let disabling = [Self.store("a", 0, 1), Self.event(.accountDisabled, 1, 2, issuedAt: Self.now), disabledStore]
        #expect(Self.rules(disabling, Self.state(active)).contains("unexplained token set"))
        #expect(Self.rules(disabling + [Self.event(.accountEnabled, 5, 6, issuedAt: Self.now)], Self.state(active)).isEmpty)
        #expect(Self.rules(history + [Self.event(.accountEnabled, 5, 6, issuedAt: Self.now)], Self.state(active)).contains("unexplained token set"),
                "an enable does not bring back what tokens-revoked ended")
        // Its refresh is overruled too, and counts as revoked once per tokens-revoked event.
        var run = SoakRecord(function: .tokenRefresh, started: Self.at(5), ended: Self.at(6), exitStatus: 0)
        run.summary = RefreshSummary()
        run.summary?.revoked = 1
        #expect(Self.rules(history + [run], Self.state(revoked)).isEmpty)
        run.summary?.revoked = 2
        #expect(Self.rules(history + [run], Self.state(revoked)) == ["revoked without invalid_grant"])
    }

    @Test("an event that surely acted is not undone by a refresh writing back an active set: no resurrected grant")
    func eventsStay() {
        let active = Self.state(Self.ofAccount(Self.verified("a", access: "google-a2"), status: .active), tags: nil)
        let refreshed = ["google-a2": "refresh-a"]
        #expect(Self.rules([Self.store("a", 0, 1), Self.event(.tokensRevoked, 2, 3)], active, issued: refreshed) == ["security event undone"])
        #expect(Self.rules([Self.store("a", 0, 1), Self.event(.accountDisabled, 2, 3)], active, issued: refreshed) == ["security event undone"])
        // Overlapping the store, failed, delivered again after an earlier one, or followed by account-enabled: nothing owed.
        #expect(Self.rules([Self.store("a", 0, 2), Self.event(.tokensRevoked, 1, 3)], active, issued: refreshed).isEmpty)
        #expect(Self.rules([Self.store("a", 0, 1), Self.event(.tokensRevoked, 2, 3, status: 503)], active, issued: refreshed).isEmpty)
        #expect(Self.rules(
            [Self.event(.tokensRevoked, 0, 1, jti: "j"), Self.store("a", 2, 3), Self.event(.tokensRevoked, 4, 5, jti: "j")], active, issued: refreshed
        ).isEmpty)
        #expect(Self.rules(
            [Self.store("a", 0, 1), Self.event(.accountDisabled, 2, 3), Self.event(.accountEnabled, 4, 5)], active, issued: refreshed
        ).isEmpty)
        // A set of another account (a switch) is not the event's.
        let other = Self.state(Self.verified("a", access: "google-a2"))
        #expect(Self.rules([Self.store("a", 0, 1), Self.event(.tokensRevoked, 2, 3)], other, issued: refreshed).isEmpty)
    }

    @Test("a lagging listing: an event is owed once a refresh run that catches up on Google's word ran after it, not before")
    func laggingListing() {
        let active = Self.state(Self.ofAccount(Self.verified("a", access: "google-a2"), status: .active), tags: nil)
        let refreshed = ["google-a2": "refresh-a"]
        let history = [Self.store("a", 0, 1), Self.event(.tokensRevoked, 2, 3)]
        let lagging = { (records: [SoakRecord]) in
            var checker = Self.checker(records, issued: refreshed)
            checker.listingLags = true
            return checker.violations(finalStates: [0: active]).map(\.rule)
        }
        #expect(lagging(history).isEmpty, "no catch-up ran: the word waits")
        var run = SoakRecord(function: .tokenRefresh, started: Self.at(4), ended: Self.at(5), exitStatus: 0)
        run.summary = RefreshSummary()
        #expect(lagging(history + [run]).isEmpty, "a run of another shard does not catch up")
        run.catchesUp = true
        #expect(lagging(history + [run]) == ["security event undone"])
        #expect(Self.rules(history, active, issued: refreshed) == ["security event undone"], "without lag the event is owed at once")
    }

    /// Google delivers late and out of order: the receiver leaves a grant alone when an event
    /// is older than its last proof, or than the latest account event applied to it.
    @Test("an event older than the set's last proof neither explains its status nor is owed; the latest account event wins")
    func lateAndReordered() {
        var provedRevoked = Self.ofAccount(Self.verified("a"), status: .revoked)
        provedRevoked.verifiedAt = Self.now
        let late = Self.now.addingTimeInterval(-3600), withinLeeway = Self.now.addingTimeInterval(-30)
        #expect(Self.rules([Self.store("a", 0, 1), Self.event(.tokensRevoked, 2, 3, issuedAt: late)], Self.state(provedRevoked)) == ["unexplained token set"])
        #expect(Self.rules([Self.store("a", 0, 1), Self.event(.tokensRevoked, 2, 3, issuedAt: withinLeeway)], Self.state(provedRevoked)).isEmpty)
        var provedActive = Self.ofAccount(Self.verified("a", access: "google-a2"))
        provedActive.verifiedAt = Self.now
        let refreshed = ["google-a2": "refresh-a"]
        #expect(Self.rules([Self.store("a", 0, 1), Self.event(.accountDisabled, 2, 3, issuedAt: late)], Self.state(provedActive, tags: nil), issued: refreshed).isEmpty)
        #expect(Self.rules([Self.store("a", 0, 1), Self.event(.accountDisabled, 2, 3, issuedAt: withinLeeway)], Self.state(provedActive, tags: nil), issued: refreshed)
            == ["security event undone"])

        // account-enabled issued after the account-disabled delivered later: enabled wins.
        let earlier = Self.now.addingTimeInterval(5), later = Self.now.addingTimeInterval(10)
        let reordered = [Self.store("a", 0, 1), Self.event(.accountEnabled, 2, 3, issuedAt: later), Self.event(.accountDisabled, 4, 5, issuedAt: earlier)]
        #expect(Self.rules(reordered, Self.state(provedActive, tags: nil), issued: refreshed).isEmpty)
        // An enable that surely acted, then nothing newer: a set still disabled by an older disable is wrong.
        let disabled = Self.state(Self.ofAccount(Self.verified("a"), status: .disabled))
        let olderDisableWins = [Self.store("a", 0, 1), Self.event(.accountDisabled, 2, 3, issuedAt: earlier), Self.event(.accountEnabled, 4, 5, issuedAt: later)]
        #expect(Self.rules(olderDisableWins, disabled) == ["an older account event won over Google's latest"])
        let newerDisable = [Self.store("a", 0, 1), Self.event(.accountEnabled, 2, 3, issuedAt: earlier), Self.event(.accountDisabled, 4, 5, issuedAt: later)]
        #expect(Self.rules(newerDisable, disabled).isEmpty)
        // Seen in a CI soak: a disable applied before a reconnect (its iat carried to the
        // reconnect's set), then an older disable after it: that one changes nothing.
        let olderAgain = [
            Self.event(.accountDisabled, 0, 1, issuedAt: later), Self.store("a", 2, 3), Self.event(.accountDisabled, 4, 5, issuedAt: earlier),
        ]
        #expect(Self.rules(olderAgain, Self.state(provedActive, tags: nil), issued: refreshed).isEmpty)
    }

    /// A body without a refresh token over a disabled set keeps the disabled account's token,
    /// unverified: the refresh run's proof at Google then connects it again, legitimately.
    @Test("a set Google proved after a reconnect over a disabled account is the reconnect's, not an undone event")
    func provedAfterReconnect() {
        let checker = InvariantChecker(
            records: [Self.store("a", 0, 1), Self.event(.accountDisabled, 2, 3), Self.store("s", 4, 5, refresh: false)],
            google: GoogleFacts(issued: { $0 == "google-a2" && $1 == "refresh-a" }, invalidGrantRefreshTokens: [], accountEmail: { _ in "g@example.com" })
        )
        let proved = Self.ofAccount(Self.verified("a", access: "google-a2", email: "g@example.com"))
        #expect(checker.violations(finalStates: [0: Self.state(proved)]).map(\.rule) == [])
        // Without that reconnect, the same set undoes the event.
        let undone = InvariantChecker(
            records: [Self.store("a", 0, 1), Self.event(.accountDisabled, 2, 3)],
            google: GoogleFacts(issued: { $0 == "google-a2" && $1 == "refresh-a" }, invalidGrantRefreshTokens: [], accountEmail: { _ in "g@example.com" })
        )
        #expect(undone.violations(finalStates: [0: Self.state(proved)]).map(\.rule) == ["security event undone"])
        // The reconnect's set itself, before the proof: disabled, unverified, the status carried over.
        var carried = Self.ofAccount(Self.asSent("s", refresh: false, keptRefreshToken: "refresh-a"), status: .disabled, verified: false)
        carried.googleSubject = SoakWorkload.googleSubject(0)
        #expect(checker.violations(finalStates: [0: Self.state(carried)]).map(\.rule) == [])
    }

    @Test("absent only after a successful disconnect that no 201 followed")
    func absence() {
        #expect(Self.rules([Self.store("a", 0, 1)], .absent) == ["lost store-tokens"])
        #expect(Self.rules([Self.store("a", 0, 1), Self.disconnect(2, 3, status: 404)], .absent) == ["lost store-tokens"])
        #expect(Self.rules([Self.store("a", 0, 1), Self.disconnect(2, 3)], .absent).isEmpty)
        #expect(Self.rules([Self.store("a", 0, 1), Self.disconnect(2, 3), Self.store("b", 4, 5)], .absent) == ["lost store-tokens"])
        #expect(Self.rules([Self.store("a", 0, 1), Self.disconnect(2, 5), Self.store("b", 4, 6)], .absent).isEmpty)
    }

    @Test("a set that a later successful disconnect deleted must not come back")
    func resurrected() {
        #expect(Self.rules([Self.store("a", 0, 1), Self.disconnect(2, 3)], Self.state(Self.verified("a")))
            == ["resurrected disconnected set", "superseded token set (a later 201 or 200 disconnect was lost)"])
        #expect(Self.rules([Self.store("a", 0, 3), Self.disconnect(2, 4)], Self.state(Self.verified("a"))).isEmpty)
    }

    @Test("a disconnect's revoked mark stays only where the disconnect failed after it, or a failed reconnect restored it")
    func revokedByDisconnect() {
        let revoked = Self.state(Self.verified("a", status: .revoked))
        #expect(Self.rules([Self.store("a", 0, 1), Self.disconnect(2, 3, status: 503)], revoked).isEmpty)
        #expect(Self.rules([Self.store("a", 0, 1), Self.disconnect(2, 3)], revoked) == ["superseded token set (a later 201 or 200 disconnect was lost)"])
        #expect(Self.rules([Self.store("a", 0, 1), Self.disconnect(2, 3), Self.store("b", 4, 5, status: 409)], revoked).isEmpty)
        #expect(Self.rules([Self.store("a", 0, 1)], revoked) == ["unexplained token set"])
    }

    @Test("a deleted set restored by a failed reconnect must read as not connected")
    func restoredAfterFailedReconnect() {
        let history = [Self.store("a", 0, 1), Self.disconnect(2, 3)]
        let set = Self.verified("a", status: .revoked)
        let check = { (state: FinalState) in Self.checker(history).violations(finalStates: [0: .absent], restored: [0: state]).map(\.rule) }
        #expect(check(Self.state(set)).isEmpty)
        var activeTags = TokenSetTags.tags(for: set)
        activeTags[TokenSetTags.status] = "active"
        #expect(check(Self.state(set, tags: activeTags)) == [
            "resurrected disconnected set (after a failed reconnect restored it)",
            "tags disagree with the value (after a failed reconnect restored it)",
        ])
        #expect(check(Self.state(Self.verified("a"))).contains("resurrected disconnected set (after a failed reconnect restored it)"))
    }

    @Test("a reconnect tags what it restores revoked, whatever the value says: revoked tags over an active value are what it leaves")
    func restoredTaggedRevoked() {
        let history = [Self.store("a", 0, 1), Self.disconnect(2, 3, status: 503)]
        let active = Self.verified("a")
        var marked = active
        marked.status = .revoked
        let check = { (state: FinalState) in Self.checker(history).violations(finalStates: [:], restored: [0: state]).map(\.rule) }
        // (moto accepts a refresh's write to a deleted secret, so its value can be active)
        #expect(check(Self.state(active, tags: TokenSetTags.tags(for: marked))).isEmpty)
        #expect(check(Self.state(active)) == [
            "tags disagree with the value (after a failed reconnect restored it)", "tags disagree with the value (after a failed reconnect restored it)",
        ])
    }

    @Test("samples taken during the run obey the same rules at their time")
    func samples() {
        let history = [Self.store("a", 0, 1), Self.disconnect(2, 3), Self.store("b", 6, 7)]
        let check = { (from: Int, to: Int, state: FinalState, connected: Bool) in
            Self.checker(history).violations(
                finalStates: [:], samples: [Observation(user: 0, started: Self.at(from), ended: Self.at(to), state: state, connected: connected)]
            ).map(\.rule)
        }
        #expect(check(1, 2, Self.state(Self.verified("a")), true).isEmpty)
        #expect(check(2, 3, Self.state(Self.verified("a", status: .revoked)), false).isEmpty)  // the mark, before the delete
        #expect(check(4, 5, .absent, false).isEmpty)
        #expect(check(1, 2, .absent, false) == ["lost store-tokens (sampled during the run)"])
        #expect(check(4, 5, Self.state(Self.verified("a")), true).count == 2)
        #expect(check(4, 5, .absent, true) == ["resurrected disconnected set (sampled during the run)"])
        #expect(check(6, 8, Self.state(Self.verified("b")), true).isEmpty)
    }

    @Test("user-profile must not read connected after a disconnect that no 201 followed")
    func profiles() {
        let history = [Self.store("a", 0, 1), Self.disconnect(2, 3)]
        let rules = { (records: [SoakRecord]) in Self.checker(records).violations(finalStates: [:]).map(\.rule) }
        #expect(rules(history + [Self.profile(4, 5, connected: true)]) == ["resurrected disconnected set"])
        #expect(rules(history + [Self.profile(4, 5, connected: false)]).isEmpty)
        #expect(rules(history + [Self.profile(4, 6, connected: true), Self.store("b", 5, 7)]).isEmpty)
        #expect(rules(history + [Self.profile(4, 6, connected: true), Self.store("b", 5, 7, status: 409)]) == ["resurrected disconnected set"])
    }

    @Test("a refresh counts only with an access token Google issued for that very refresh token")
    func refreshes() {
        let history = [Self.store("a", 0, 1)]
        #expect(Self.rules(history, Self.state(Self.verified("a", access: "ya29.fake-1")), issued: ["ya29.fake-1": "refresh-a"]).isEmpty)
        #expect(Self.rules(history, Self.state(Self.verified("a", access: "ya29.fake-1")), issued: ["ya29.fake-1": "refresh-b"]) == ["unexplained token set"])
    }

    @Test("revoked only after invalid_grant for that refresh token; a refused grant is never stored")
    func revocations() {
        let history = [Self.store("a", 0, 1)]
        let revoked = Self.state(Self.verified("a", status: .revoked))
        #expect(Self.rules(history, revoked) == ["unexplained token set"])
        #expect(Self.rules(history, revoked, invalidGrants: ["refresh-a"]).isEmpty)
        var run = SoakRecord(function: .tokenRefresh, started: Self.at(2), ended: Self.at(3), exitStatus: 0)
        run.summary = RefreshSummary()
        run.summary?.revoked = 1
        #expect(Self.rules(history + [run], Self.state(Self.verified("a"))) == ["revoked without invalid_grant"])
        var dead = Self.store("b", 2, 3)
        dead.sent?.scriptedRevoked = true
        #expect(Self.rules(history + [dead], Self.state(Self.verified("a"))).contains("dead grant not refused"))
        dead.httpStatus = 400
        #expect(Self.rules(history + [dead], Self.state(Self.verified("a"))).isEmpty)
    }

    @Test("tags that disagree with the value are caught")
    func tags() {
        var tags = TokenSetTags.tags(for: Self.verified("a"))
        tags[TokenSetTags.status] = "revoked"
        #expect(Self.rules([Self.store("a", 0, 1)], Self.state(Self.verified("a"), tags: tags)) == ["tags disagree with the value"])
    }

    @Test("an expiry tag left earlier by a refresh that wrote no tags agrees; a later one does not")
    func staleExpiryTag() {
        let set = Self.verified("a")
        var earlier = TokenSetTags.tags(for: set)
        earlier[TokenSetTags.expiresAt] = String(Int64(set.expiresAt.timeIntervalSince1970) - 3000)
        #expect(Self.rules([Self.store("a", 0, 1)], Self.state(set, tags: earlier)).isEmpty)
        var later = TokenSetTags.tags(for: set)
        later[TokenSetTags.expiresAt] = String(Int64(set.expiresAt.timeIntervalSince1970) + 3000)
        #expect(Self.rules([Self.store("a", 0, 1)], Self.state(set, tags: later)) == ["tags disagree with the value"])
    }
}
