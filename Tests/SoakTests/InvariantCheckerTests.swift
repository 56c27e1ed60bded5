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

    static func store(_ name: String, _ from: Int, _ to: Int, status: Int = 201) -> SoakRecord {
        SoakRecord(function: .storeTokens, user: 0, started: at(from), ended: at(to), exitStatus: 0, httpStatus: status, sent: sent(name))
    }

    static func disconnect(_ from: Int, _ to: Int, status: Int = 200) -> SoakRecord {
        SoakRecord(function: .disconnect, user: 0, started: at(from), ended: at(to), exitStatus: 0, httpStatus: status)
    }

    /// The set store-tokens would have stored for `name`, optionally refreshed or revoked.
    static func stored(_ name: String, access: String? = nil, lifetime: Int = 300, status: GmailTokenSet.Status = .active) -> FinalState {
        let sent = sent(name)
        let set = GmailTokenSet(
            accessToken: access ?? sent.accessToken, refreshToken: sent.refreshToken, expiresAt: now.addingTimeInterval(Double(lifetime)),
            scope: sent.scope, googleEmail: sent.email, connectedAt: now, updatedAt: now, status: status
        )
        return .present(set, tags: TokenSetTags.tags(for: set))
    }

    static func checker(_ records: [SoakRecord], issued: [String: String] = [:], invalidGrants: [String] = []) -> InvariantChecker {
        InvariantChecker(records: records, google: GoogleFacts(issued: { issued[$0] == $1 }, invalidGrantRefreshTokens: invalidGrants))
    }

    static func rules(_ records: [SoakRecord], _ state: FinalState, issued: [String: String] = [:], invalidGrants: [String] = []) -> [String] {
        checker(records, issued: issued, invalidGrants: invalidGrants).violations(finalStates: [0: state]).map(\.rule)
    }

    @Test("the last 201 is accepted; either of two overlapping ones is")
    func lastWriteWins() {
        #expect(Self.rules([Self.store("a", 0, 1), Self.store("b", 2, 3)], Self.stored("b")).isEmpty)
        #expect(Self.rules([Self.store("a", 0, 5), Self.store("b", 2, 3)], Self.stored("a")).isEmpty)
        #expect(Self.rules([Self.store("a", 0, 5), Self.store("b", 2, 3)], Self.stored("b")).isEmpty)
    }

    @Test("an older 201 overwriting a newer one is a lost store")
    func staleValue() {
        #expect(Self.rules([Self.store("a", 0, 1), Self.store("b", 2, 3)], Self.stored("a")) == ["superseded token set (a later 201 or 200 disconnect was lost)"])
    }

    @Test("a set no 201 sent is unexplained, even if a failed call sent it")
    func unexplained() {
        #expect(Self.rules([Self.store("a", 0, 1), Self.store("b", 2, 3, status: 503)], Self.stored("b")) == ["unexplained token set"])
        #expect(Self.rules([Self.store("a", 0, 1)], Self.stored("a", lifetime: 299)) == ["unexplained token set"])
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
        #expect(Self.rules([Self.store("a", 0, 1), Self.disconnect(2, 3)], Self.stored("a")) == ["superseded token set (a later 201 or 200 disconnect was lost)"])
        #expect(Self.rules([Self.store("a", 0, 3), Self.disconnect(2, 4)], Self.stored("a")).isEmpty)
    }

    @Test("a refresh counts only with an access token Google issued for that very refresh token")
    func refreshes() {
        let history = [Self.store("a", 0, 1)]
        #expect(Self.rules(history, Self.stored("a", access: "ya29.fake-1", lifetime: 3599), issued: ["ya29.fake-1": "refresh-a"]).isEmpty)
        #expect(Self.rules(history, Self.stored("a", access: "ya29.fake-1", lifetime: 3599), issued: ["ya29.fake-1": "refresh-b"]) == ["unexplained token set"])
    }

    @Test("revoked only after invalid_grant for that refresh token")
    func revocations() {
        let history = [Self.store("a", 0, 1)]
        #expect(Self.rules(history, Self.stored("a", status: .revoked)) == ["unexplained token set"])
        #expect(Self.rules(history, Self.stored("a", status: .revoked), invalidGrants: ["refresh-a"]).isEmpty)
        var run = SoakRecord(function: .tokenRefresh, started: Self.at(2), ended: Self.at(3), exitStatus: 0)
        run.summary = RefreshSummary()
        run.summary?.revoked = 1
        #expect(Self.rules(history + [run], Self.stored("a")) == ["revoked without invalid_grant"])
    }

    @Test("tags that disagree with the value are caught")
    func tags() {
        guard case .present(let set, var tags) = Self.stored("a") else { return }
        tags[TokenSetTags.status] = "revoked"
        #expect(Self.rules([Self.store("a", 0, 1)], .present(set, tags: tags)) == ["tags disagree with the value"])
    }
}
