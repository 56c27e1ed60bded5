#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulsePorts

/// A ``SecurityEventLedger`` in memory, for handler unit tests: the stores' semantics (it
/// runs the contract suite too), a call log so a test can see that an event was not recorded,
/// and a scripted fault.
package actor InMemorySecurityEventLedger: SecurityEventLedger {
    private var expiries: [String: Date] = [:]
    private var claims: [String: (claimant: String, expiry: Date)] = [:]
    private var latest: [String: RecordedSecurityEvent] = [:]
    private let now: @Sendable () -> Date
    private var fault: StoreError?
    /// Every call, in order: `contains(<jti>)`, `claim(<jti>)`, `release(<jti>)` and `record(<jti>)`.
    package private(set) var calls: [String] = []

    /// An empty ledger whose records expire by `now`.
    package init(now: @escaping @Sendable () -> Date = { Date() }) {
        self.now = now
    }

    /// Makes every call fail with `error` (or succeed again with `nil`).
    package func setFault(_ error: StoreError?) { fault = error }

    /// The records that have not expired, by `jti`.
    package var records: [String: Date] {
        let now = self.now()
        return expiries.filter { $0.value > now }
    }

    package func contains(_ jti: String) throws -> Bool {
        try enter("contains(\(jti))", jti)
        return records[jti] != nil
    }

    /// Whether a live record, or a live claim by anyone but `claimant`, is there.
    private func isLive(_ jti: String, except claimant: String) -> Bool {
        guard records[jti] == nil else { return true }
        guard let claim = claims[jti], claim.expiry > now() else { return false }
        return claim.claimant != claimant
    }

    package func claim(_ jti: String, by claimant: String, until expiry: Date) throws -> Bool {
        try enter("claim(\(jti))", jti)
        guard !isLive(jti, except: claimant) else { return false }
        claims[jti] = (claimant, expiry)
        return true
    }

    package func release(_ jti: String, by claimant: String) throws {
        try enter("release(\(jti))", jti)
        if claims[jti]?.claimant == claimant { claims[jti] = nil }
    }

    package func record(_ jti: String, until expiry: Date) async throws {
        try await record(jti, events: [], until: expiry)
    }

    // `async`, as the protocol's defaults are: a caller in an async context would otherwise
    // be handed the default, which keeps no events.
    package func record(_ jti: String, events: [RecordedSecurityEvent], until expiry: Date) async throws {
        try enter("record(\(jti))", jti)
        claims[jti] = nil
        guard records[jti] == nil else { return }
        expiries[jti] = expiry
        for event in events where (latest[event.subject]?.receivedAt ?? .distantPast) <= event.receivedAt { latest[event.subject] = event }
    }

    package func latestEvents(of subjects: [String]) async throws -> [String: RecordedSecurityEvent]? {
        if let fault { throw fault }
        return latest.filter { subjects.contains($0.key) }
    }

    private func enter(_ call: String, _ jti: String) throws {
        calls.append(call)
        if let fault { throw fault }
        if jti.isEmpty { throw StoreError.invalidRequest.with(message: "an empty jti") }
    }
}
