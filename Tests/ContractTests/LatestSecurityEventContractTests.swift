#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// Each Google account's latest security event, as the ledgers that keep them (in memory,
/// embedded) answer the local console; DynamoDB's says it keeps none and still records the
/// `jti`.
@Suite("SecurityEventLedger: each account's latest event")
struct LatestSecurityEventContractTests {
    static let risc = "https://schemas.openid.net/secevent/risc/event-type/"

    @Test("the latest event per account: a later one replaces it, an earlier one or a redelivered jti does not", arguments: SecurityEventLedgerFactory.all)
    func latestPerAccount(_ factory: SecurityEventLedgerFactory) async throws {
        let clock = LedgerClock()
        try await factory.withLedger(now: clock.now) { ledger in
            func event(_ type: String, _ subject: String, _ second: Double) -> RecordedSecurityEvent {
                RecordedSecurityEvent(type: Self.risc + type, subject: subject, receivedAt: clock.at(second))
            }
            let first = "first-\(UUID().uuidString)", second = "second-\(UUID().uuidString)", late = "late-\(UUID().uuidString)"
            try await ledger.record(first, events: [event("account-disabled", "acct-a", 10)], until: clock.at(600))
            try await ledger.record(second, events: [event("account-enabled", "acct-a", 20), event("sessions-revoked", "acct-b", 20)], until: clock.at(600))
            // The first token delivered again with other contents, and an event older than the kept one.
            try await ledger.record(first, events: [event("account-purged", "acct-a", 30)], until: clock.at(600))
            try await ledger.record(late, events: [event("account-disabled", "acct-b", 5)], until: clock.at(600))
            let recorded = (try await ledger.contains(second), try await ledger.contains(late))
            #expect(recorded == (true, true))

            let latest = try await ledger.latestEvents(of: ["acct-a", "acct-b", "acct-c"])
            guard !factory.name.hasPrefix("dynamodb") else {
                #expect(latest == nil, "DynamoDB keeps no events: a lookup by account would be a scan")
                return
            }
            #expect(latest == ["acct-a": event("account-enabled", "acct-a", 20), "acct-b": event("sessions-revoked", "acct-b", 20)])
            #expect(try await ledger.latestEvents(of: ["acct-b"]) == ["acct-b": event("sessions-revoked", "acct-b", 20)])
        }
    }
}
