#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The security events already acted on, by their `jti` (unique per event in Google's
/// stream), so an event Google delivers again acts once. An account's grants may change
/// between two deliveries of one event (a user reconnects after `tokens-revoked`); acting
/// again would undo that.
///
/// The receiver ``claim(_:by:until:)``s the `jti` for a short lease first (a conditional write,
/// so of two copies delivered at once only one acts), acts, and then ``record(_:until:)``s it
/// for good: an event whose acting failed is released (``release(_:by:)``), so Google's
/// redelivery does the work; one whose receiver died keeps its lease until it expires.
///
/// A claim names its claimant (one per delivery), so a claim written whose answer was lost
/// is the claimant's own when it asks again, and a release removes only its own claim.
package protocol SecurityEventLedger: Sendable {
    /// Claims `jti` for `claimant` until `expiry` unless a live record, or another
    /// claimant's live claim, is there.
    /// - Returns: whether `claimant` holds it now: `false` means another copy has it.
    /// - Throws: `StoreError` when the ledger cannot be written.
    func claim(_ jti: String, by claimant: String, until expiry: Date) async throws -> Bool

    /// Removes `jti`'s claim if `claimant` holds it, so a redelivery acts.
    /// - Throws: `StoreError` when the ledger cannot be written.
    func release(_ jti: String, by claimant: String) async throws

    /// Whether `jti` was recorded (a claim is not a record) and its record has not expired.
    /// - Throws: `StoreError` when the ledger cannot be read.
    func contains(_ jti: String) async throws -> Bool

    /// Records `jti` until `expiry`, replacing its claim (a record already there stays, or is
    /// extended).
    /// - Throws: `StoreError` when the ledger cannot be written.
    func record(_ jti: String, until expiry: Date) async throws

    /// Records `jti` as ``record(_:until:)`` does and, when this ledger keeps them and `jti`
    /// was not recorded before, `events` as their accounts' latest (see ``latestEvents(of:)``).
    /// A wrapper forwards this call, or the events are lost to the console.
    /// - Throws: `StoreError` when the ledger cannot be written.
    func record(_ jti: String, events: [RecordedSecurityEvent], until expiry: Date) async throws

    /// The latest event recorded for each of `subjects` (Google account ids) that has one,
    /// for the local console; `nil` when this ledger keeps none.
    /// - Throws: `StoreError` when the ledger cannot be read.
    func latestEvents(of subjects: [String]) async throws -> [String: RecordedSecurityEvent]?
}

extension SecurityEventLedger {
    /// Keeps no events: records `jti` only. (The DynamoDB ledger's choice: a lookup by
    /// account there would be a second table or a scan, for a console that only
    /// `paypulse serve` shows.)
    package func record(_ jti: String, events: [RecordedSecurityEvent], until expiry: Date) async throws {
        try await record(jti, until: expiry)
    }

    /// `nil`: this ledger keeps no events.
    package func latestEvents(of subjects: [String]) async throws -> [String: RecordedSecurityEvent]? { nil }
}
