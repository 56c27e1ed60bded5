#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// The ``SecurityEventLedger`` contract, run against every ``SecurityEventLedgerFactory/all``
/// ledger: in memory, embedded, and DynamoDB on moto. Each test moves its own clock; a
/// record is expired from its expiry on.
@Suite("SecurityEventLedger contract")
struct SecurityEventLedgerContractTests {
    @Test("a jti is absent, then recorded", arguments: SecurityEventLedgerFactory.all)
    func recordThenContains(_ factory: SecurityEventLedgerFactory) async throws {
        let clock = LedgerClock()
        try await factory.withLedger(now: clock.now) { ledger in
            let jti = Self.jti("first")
            #expect(try await ledger.contains(jti) == false)
            try await ledger.record(jti, until: clock.at(60))
            #expect(try await ledger.contains(jti))
            clock.set(59)
            #expect(try await ledger.contains(jti))
        }
    }

    @Test("a second record of a jti keeps the first one's expiry, later or earlier", arguments: SecurityEventLedgerFactory.all)
    func secondRecordKeepsTheFirst(_ factory: SecurityEventLedgerFactory) async throws {
        let clock = LedgerClock()
        try await factory.withLedger(now: clock.now) { ledger in
            let short = Self.jti("short"), long = Self.jti("long")
            try await ledger.record(short, until: clock.at(60))
            try await ledger.record(short, until: clock.at(600))
            try await ledger.record(long, until: clock.at(600))
            try await ledger.record(long, until: clock.at(60))
            clock.set(61)
            #expect(try await ledger.contains(short) == false, "the later expiry of the second record did not replace the first")
            #expect(try await ledger.contains(long), "the earlier expiry of the second record did not replace the first")
        }
    }

    @Test("an expired record reads absent from its expiry on and can be recorded again", arguments: SecurityEventLedgerFactory.all)
    func expiredRecordIsAbsentAndRecordable(_ factory: SecurityEventLedgerFactory) async throws {
        let clock = LedgerClock()
        try await factory.withLedger(now: clock.now) { ledger in
            let jti = Self.jti("expired")
            try await ledger.record(jti, until: clock.at(60))
            clock.set(60)
            #expect(try await ledger.contains(jti) == false)

            try await ledger.record(jti, until: clock.at(200))
            #expect(try await ledger.contains(jti))
            clock.set(199)
            #expect(try await ledger.contains(jti), "the new record carries the new expiry")
            clock.set(200)
            #expect(try await ledger.contains(jti) == false)
        }
    }

    @Test("two concurrent records of one jti both succeed and one of them is kept, whole", arguments: SecurityEventLedgerFactory.all)
    func concurrentRecordsBothSucceed(_ factory: SecurityEventLedgerFactory) async throws {
        let clock = LedgerClock()
        try await factory.withLedger(now: clock.now) { ledger in
            let jti = Self.jti("race")
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await ledger.record(jti, until: clock.at(60)) }
                group.addTask { try await ledger.record(jti, until: clock.at(600)) }
                try await group.waitForAll()
            }
            #expect(try await ledger.contains(jti))
            // The record kept is one of the two: its expiry is exactly 60 or exactly 600.
            clock.set(61)
            let kept: Double = try await ledger.contains(jti) ? 600 : 60
            clock.set(kept - 1)
            #expect(try await ledger.contains(jti))
            clock.set(kept)
            #expect(try await ledger.contains(jti) == false)
        }
    }

    @Test("distinct jtis are recorded and expire independently", arguments: SecurityEventLedgerFactory.all)
    func distinctJTIsAreIndependent(_ factory: SecurityEventLedgerFactory) async throws {
        let clock = LedgerClock()
        try await factory.withLedger(now: clock.now) { ledger in
            let first = Self.jti("one"), second = Self.jti("two")
            try await ledger.record(first, until: clock.at(60))
            #expect(try await ledger.contains(second) == false)
            try await ledger.record(second, until: clock.at(600))
            clock.set(61)
            #expect(try await ledger.contains(first) == false)
            #expect(try await ledger.contains(second))
        }
    }

    @Test("jtis with quotes, slashes, SQL, non-ASCII and 256 bytes round-trip, each apart from its neighbour", arguments: SecurityEventLedgerFactory.all)
    func oddJTIsRoundTrip(_ factory: SecurityEventLedgerFactory) async throws {
        let clock = LedgerClock()
        try await factory.withLedger(now: clock.now) { ledger in
            let unique = UUID().uuidString
            let long = String(repeating: "é", count: 128 - unique.utf8.count / 2) + unique  // 256 bytes of UTF-8
            #expect(long.utf8.count == 256)
            let odd = [
                #"quote"d'jti"# + unique, #"a/b\c//"# + unique, "x' OR '1'='1 -- \(unique)", "#jti :now \(unique)",
                "space and\ttab \u{1F510} \(unique)", long,
            ]
            for jti in odd { try await ledger.record(jti, until: clock.at(60)) }
            for jti in odd {
                #expect(try await ledger.contains(jti), "\(jti)")
                #expect(try await ledger.contains(jti + "x") == false, "\(jti)x")
            }
            #expect(try await ledger.contains(String(long.dropLast())) == false)
            #expect(try await ledger.contains("x' OR '1'='1") == false)
        }
    }

    @Test("an empty jti is refused as invalid_request", arguments: SecurityEventLedgerFactory.all)
    func emptyJTIIsRefused(_ factory: SecurityEventLedgerFactory) async throws {
        let clock = LedgerClock()
        try await factory.withLedger(now: clock.now) { ledger in
            await expectStoreError(.invalidRequest) { try await ledger.contains("") }
            await expectStoreError(.invalidRequest) { try await ledger.record("", until: clock.at(60)) }
        }
    }

    @Test("a store that cannot be reached is a StoreError, unavailable", arguments: SecurityEventLedgerFactory.all.filter { $0.unreachable != nil })
    func unreachableStoreIsAStoreError(_ factory: SecurityEventLedgerFactory) async throws {
        let makeUnreachable = try #require(factory.unreachable)
        let ledger = try await makeUnreachable()
        await expectStoreError(.unavailable) { try await ledger.contains(Self.jti("down")) }
        await expectStoreError(.unavailable) { try await ledger.record(Self.jti("down"), until: Date().addingTimeInterval(60)) }
    }

    /// A jti unique to one test run, so a shared table never holds it already.
    private static func jti(_ label: String) -> String { "\(label)-\(UUID().uuidString.lowercased())" }
}
