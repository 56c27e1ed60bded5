import Foundation
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// Every store of Google's word on accounts, and every ledger's claim: the same behaviour in
/// memory, in the embedded file and on DynamoDB (moto).
@Suite("Google's word on accounts and the ledger's claims, on every store")
struct GoogleAccountWordsContractTests {
    @Test("a word only moves forward per kind; events come oldest first", arguments: SecurityEventLedgerFactory.all)
    func wordMovesForward(_ factory: SecurityEventLedgerFactory) async throws {
        let clock = MovingClock()
        try await factory.withMade(now: { clock.now }) { made in
            let subject = "10\(UInt64.random(in: 1_000_000_000...9_999_999_999))", t0 = Date(timeIntervalSince1970: 1_800_000_000)
            #expect(try await made.words.word(of: subject) == GoogleAccountWord())
            try await made.words.record(.disabled, issuedAt: t0, for: subject)
            try await made.words.record(.disabled, issuedAt: t0.addingTimeInterval(-60), for: subject)
            try await made.words.record(.enabled, issuedAt: t0.addingTimeInterval(30), for: subject)
            try await made.words.record(.revoked, issuedAt: t0.addingTimeInterval(10), for: subject)
            let word = try await made.words.word(of: subject)
            #expect(word[.disabled] == nil && word[.enabled] == t0.addingTimeInterval(30) && word[.revoked] == t0.addingTimeInterval(10))
            #expect(word.events.map(\.kind) == [.revoked, .enabled], "the account's latest state only")
            // An older disable changes nothing; one of the same second, delivered later, wins.
            try await made.words.record(.disabled, issuedAt: t0.addingTimeInterval(20), for: subject)
            #expect(try await made.words.word(of: subject)[.enabled] == t0.addingTimeInterval(30))
            try await made.words.record(.disabled, issuedAt: t0.addingTimeInterval(30), for: subject)
            let latest = try await made.words.word(of: subject)
            #expect(latest[.disabled] == t0.addingTimeInterval(30) && latest[.enabled] == nil)
            #expect(try await made.words.word(of: subject + "0") == GoogleAccountWord(), "another account has no word")
        }
    }

    @Test("the accounts spoken of lately include each recorded since, and not those of long ago", arguments: SecurityEventLedgerFactory.all)
    func accountsSpokenOf(_ factory: SecurityEventLedgerFactory) async throws {
        let clock = MovingClock()
        try await factory.withMade(now: { clock.now }) { made in
            let old = "11\(UInt64.random(in: 1_000_000_000...9_999_999_999))", recent = "12\(UInt64.random(in: 1_000_000_000...9_999_999_999))"
            try await made.words.record(.revoked, issuedAt: clock.now, for: old)
            clock.advance(by: 7200)
            let since = clock.now.addingTimeInterval(-600)
            try await made.words.record(.purged, issuedAt: clock.now, for: recent)
            let accounts = try await made.words.accounts(spokenOfSince: since)
            #expect(accounts.contains(recent) && !accounts.contains(old), "\(accounts)")
        }
    }

    @Test("a claim is taken once and again by its claimant; a record replaces it; a released or expired claim can be taken again", arguments: SecurityEventLedgerFactory.all)
    func claims(_ factory: SecurityEventLedgerFactory) async throws {
        let clock = MovingClock()
        try await factory.withMade(now: { clock.now }) { made in
            let jti = "jti-\(UUID().uuidString)", ledger = made.ledger
            let lease = { clock.now.addingTimeInterval(300) }
            #expect(try await ledger.claim(jti, by: "first", until: lease()))
            #expect(try await ledger.claim(jti, by: "first", until: lease()), "the claimant asking again (its answer lost) holds it")
            #expect(try await !ledger.claim(jti, by: "second", until: lease()), "a second copy finds the claim")
            #expect(try await !ledger.contains(jti), "a claim is not a record")
            try await ledger.release(jti, by: "second")
            #expect(try await !ledger.claim(jti, by: "second", until: lease()), "a release by another claimant leaves the claim")
            try await ledger.release(jti, by: "first")
            #expect(try await ledger.claim(jti, by: "second", until: lease()), "released: the redelivery acts")
            clock.advance(by: 301)
            #expect(try await ledger.claim(jti, by: "third", until: lease()), "a lease that ran out: taken over")
            try await ledger.record(jti, until: clock.now.addingTimeInterval(86_400))
            clock.advance(by: 600)
            #expect(try await ledger.contains(jti), "the record outlives the claim's lease")
            #expect(try await !ledger.claim(jti, by: "third", until: lease()), "a record is never claimed, not even by its claimant")
            try await ledger.release(jti, by: "third")
            #expect(try await ledger.contains(jti), "a release leaves a record for good")
        }
    }
}
