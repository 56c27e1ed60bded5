import Foundation
import PayPulseDomain
import Testing

@Suite("Merging what the app sends over what is stored")
struct TokenSetMergeTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let earlier = Date(timeIntervalSince1970: 1_700_000_000)

    func stored(email: String? = "jane@gmail.com", refresh: String? = "1//stored", status: GmailTokenSet.Status = .active) -> GmailTokenSet {
        GmailTokenSet(
            accessToken: "ya29.old", refreshToken: refresh, expiresAt: earlier, scope: "s1 s2", googleEmail: email,
            connectedAt: earlier, updatedAt: earlier, status: status
        )
    }

    @Test("first connection: everything from the request; expiry from expires_in")
    func first() {
        let (set, outcome) = GmailTokenSet.merging(
            IncomingTokens(accessToken: "ya29.new", refreshToken: "1//new", expiresIn: 1800, scopes: ["a", "b"], email: "jane@gmail.com"),
            over: nil, now: now
        )
        #expect(outcome == .firstConnection)
        #expect(set.refreshToken == "1//new" && set.scope == "a b" && set.googleEmail == "jane@gmail.com")
        #expect(set.expiresAt == now.addingTimeInterval(1800) && set.connectedAt == now && set.status == .active)
    }

    @Test("the same account keeps its refresh token, scope, email and connection time")
    func sameAccountKeeps() {
        let (set, outcome) = GmailTokenSet.merging(IncomingTokens(accessToken: "ya29.new", email: "JANE@gmail.com"), over: stored(), now: now)
        #expect(outcome == .updated)
        #expect(set.refreshToken == "1//stored" && set.scope == "s1 s2" && set.connectedAt == earlier && set.updatedAt == now)
        #expect(set.accessToken == "ya29.new" && set.isRefreshable)
    }

    @Test("a set without a refresh token is stored unverified: Google confirmed nothing of it")
    func withoutRefreshTokenUnverified() {
        let sent = IncomingTokens(accessToken: "ya29.new", email: "jane@gmail.com")
        let (first, _) = GmailTokenSet.merging(sent, over: nil, now: now)
        #expect(!first.verified && first.verifiedAt == nil)
        #expect(TokenSetTags.tags(for: first)[TokenSetTags.verified] == "false")
        let (switched, outcome) = GmailTokenSet.merging(IncomingTokens(accessToken: "ya29.new", email: "other@gmail.com"), over: stored(), now: now)
        #expect(outcome == .accountSwitched && !switched.verified)
        let (revokedBefore, _) = GmailTokenSet.merging(sent, over: stored(status: .revoked), now: now)
        #expect(revokedBefore.refreshToken == nil && revokedBefore.status == .revoked)
        // The same account keeps its stored refresh token, and that token's verification.
        let (kept, _) = GmailTokenSet.merging(sent, over: stored(), now: now)
        #expect(kept.refreshToken == "1//stored" && kept.verified)
    }

    @Test("a new refresh token for the same account replaces the stored one")
    func sameAccountNewRefresh() {
        let (set, _) = GmailTokenSet.merging(IncomingTokens(accessToken: "a", refreshToken: "1//newer"), over: stored(), now: now)
        #expect(set.refreshToken == "1//newer")
    }

    @Test("another account replaces the whole set; without a refresh token it is not refreshable")
    func accountSwitch() {
        let (set, outcome) = GmailTokenSet.merging(IncomingTokens(accessToken: "a", email: "other@gmail.com"), over: stored(), now: now)
        #expect(outcome == .accountSwitched)
        #expect(set.refreshToken == nil && !set.isRefreshable && set.scope == "" && set.connectedAt == now)
        let (withRefresh, _) = GmailTokenSet.merging(IncomingTokens(accessToken: "a", refreshToken: "1//o", email: "other@gmail.com"), over: stored(), now: now)
        #expect(withRefresh.isRefreshable)
    }

    @Test("a refused or disabled grant is connected again only by a refresh token Google proves; the app's word leaves it as it was")
    func deadOrDisabledStays() {
        for status in [GmailTokenSet.Status.revoked, .rejected, .disabled] {
            // An access token alone: still not connected; a dead grant's token is not kept,
            // a disabled account's is, for the refresh run to ask Google about.
            let (accessOnly, outcome) = GmailTokenSet.merging(IncomingTokens(accessToken: "a"), over: stored(status: status), now: now)
            #expect(outcome == .updated && accessOnly.status == status, "\(status)")
            if status == .disabled {
                #expect(accessOnly.refreshToken == "1//stored" && !accessOnly.verified && accessOnly.isRefreshable)
            } else {
                #expect(accessOnly.refreshToken == nil && !accessOnly.isRefreshable, "\(status)")
            }
            // A refresh token Google could not check now: stored, unverified, for the run to prove.
            let unchecked = IncomingTokens(accessToken: "a", refreshToken: "1//fresh", verified: false)
            let (pending, _) = GmailTokenSet.merging(unchecked, over: stored(status: status), now: now)
            #expect(pending.status == status && pending.refreshToken == "1//fresh" && !pending.verified && pending.isRefreshable, "\(status)")
            // Proved at Google: connected.
            let (consented, _) = GmailTokenSet.merging(IncomingTokens(accessToken: "a", refreshToken: "1//fresh"), over: stored(status: status), now: now)
            #expect(consented.status == .active && consented.verified && consented.verifiedAt == now && consented.isRefreshable, "\(status)")
        }
    }

    @Test("an unknown email on either side counts as the same account")
    func unknownEmail() {
        #expect(GmailTokenSet.merging(IncomingTokens(accessToken: "a"), over: stored(), now: now).1 == .updated)
        #expect(GmailTokenSet.merging(IncomingTokens(accessToken: "a", email: "x@y.z"), over: stored(email: nil), now: now).1 == .updated)
    }
}

@Suite("Merging: the Google subject is the account")
struct TokenSetSubjectMergeTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let earlier = Date(timeIntervalSince1970: 1_700_000_000)

    func stored(subject: String?, email: String?, status: GmailTokenSet.Status = .active) -> GmailTokenSet {
        GmailTokenSet(
            accessToken: "ya29.old", refreshToken: "1//stored", expiresAt: earlier, scope: "s", googleEmail: email, googleSubject: subject,
            connectedAt: earlier, updatedAt: earlier, status: status
        )
    }

    func verified(subject: String, email: String?, refresh: String? = "1//new") -> IncomingTokens {
        IncomingTokens(accessToken: "ya29.new", refreshToken: refresh, scopes: ["s"], email: email, subject: subject, emailVerified: true)
    }

    @Test("same subject, renamed address: an update that keeps the connection time and takes the new address")
    func rename() {
        let (set, outcome) = GmailTokenSet.merging(verified(subject: "sub-1", email: "new@gmail.com"), over: stored(subject: "sub-1", email: "old@gmail.com"), now: now)
        #expect(outcome == .updated && set.googleEmail == "new@gmail.com" && set.connectedAt == earlier && set.googleSubject == "sub-1")
        #expect(set.verified && set.verifiedAt == now && set.emailVerified == true)
    }

    @Test("another subject under the same address is a switch")
    func otherSubjectSameEmail() {
        let (set, outcome) = GmailTokenSet.merging(verified(subject: "sub-2", email: "jane@gmail.com"), over: stored(subject: "sub-1", email: "jane@gmail.com"), now: now)
        #expect(outcome == .accountSwitched && set.googleSubject == "sub-2" && set.connectedAt == now)
    }

    @Test("a stored set without a subject falls back to emails, ignoring case")
    func legacyFallback() {
        #expect(GmailTokenSet.merging(verified(subject: "sub-1", email: "JANE@gmail.com"), over: stored(subject: nil, email: "jane@gmail.com"), now: now).1 == .updated)
        #expect(GmailTokenSet.merging(verified(subject: "sub-1", email: "bob@gmail.com"), over: stored(subject: nil, email: "jane@gmail.com"), now: now).1 == .accountSwitched)
    }

    @Test("a rejected set's refresh token is not carried over; an unverified one stays unverified when none is sent")
    func rejectedAndUnverified() {
        let noRefresh = IncomingTokens(accessToken: "ya29.new", email: "jane@gmail.com")
        let (afterRejected, _) = GmailTokenSet.merging(noRefresh, over: stored(subject: "sub-1", email: "jane@gmail.com", status: .rejected), now: now)
        #expect(afterRejected.refreshToken == nil && afterRejected.status == .rejected)
        var pending = stored(subject: nil, email: "jane@gmail.com")
        pending.verified = false
        let (kept, _) = GmailTokenSet.merging(noRefresh, over: pending, now: now)
        #expect(kept.refreshToken == "1//stored" && !kept.verified && kept.googleSubject == nil)
    }
}
