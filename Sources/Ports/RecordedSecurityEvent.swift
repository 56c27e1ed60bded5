#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One event of an acted-on security event token as a ledger keeps it for the local
/// console (``SecurityEventLedger/latestEvents(of:)``): what happened, to which Google
/// account, and when it was received. No token material.
package struct RecordedSecurityEvent: Sendable, Equatable {
    /// The event type's URI.
    package var type: String
    /// The Google account (`sub`) it named.
    package var subject: String
    /// When the receiver accepted it.
    package var receivedAt: Date

    /// Creates a record.
    /// - Parameters:
    ///   - type: The event type's URI.
    ///   - subject: The Google account it named.
    ///   - receivedAt: When it was received.
    package init(type: String, subject: String, receivedAt: Date) {
        self.type = type
        self.subject = subject
        self.receivedAt = receivedAt
    }
}
