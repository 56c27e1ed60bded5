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
/// The receiver asks ``contains(_:)`` first, acts, and then ``record(_:until:)``s: an event
/// whose acting failed is not recorded, so Google's redelivery does the work.
public protocol SecurityEventLedger: Sendable {
    /// Whether `jti` was recorded and its record has not expired.
    /// - Throws: `StoreError` when the ledger cannot be read.
    func contains(_ jti: String) async throws -> Bool

    /// Records `jti` until `expiry` (a conditional write: a record already there stays).
    /// - Throws: `StoreError` when the ledger cannot be written.
    func record(_ jti: String, until expiry: Date) async throws
}
