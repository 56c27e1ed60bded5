#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseCoding

/// One change of a user's Gmail connection, as the rest of PayPulse is told of it: an
/// EventBridge event of source ``source`` whose `DetailType` is the ``Kind``'s and whose
/// `Detail` is ``detail`` (docs/events.md; `docs/lifecycle-event.schema.json`). It names no
/// token, no token digest and no email address.
///
/// An event is written into the grant's own document by the write that makes the change
/// (``LifecycleOutbox``), so it exists only for a change that was stored, and keeps its
/// ``eventID`` through every attempt to publish it.
package struct LifecycleEvent: Sendable, Equatable {
    /// The `Source` of every event.
    package static let source = "paypulse.gmail"

    /// What changed: each is one `DetailType`.
    package enum Kind: String, Sendable, CaseIterable {
        case connected = "Gmail Connected"
        /// A new refresh token for the same Google account, or the same account usable again.
        case reconnected = "Gmail Reconnected"
        case accountSwitched = "Gmail Account Switched"
        /// Google refused the grant (`invalid_grant`, another client's), or a security event revoked it.
        case revoked = "Gmail Revoked"
        case disabled = "Gmail Disabled"
        /// Google enabled the account and has renewed its grant since: usable again.
        case enabled = "Gmail Enabled"
        case disconnected = "Gmail Disconnected"
        case purged = "Gmail Purged"
        /// Refreshes have failed for now (Google unreachable or erring) for longer than the set span.
        case refreshFailing = "Gmail Refresh Failing"
    }

    /// The connection's state before and after, as the events name it.
    package enum Status: String, Sendable, CaseIterable {
        case notConnected = "not_connected"
        case connected, revoked, rejected, disabled, disconnected

        /// The state a stored set is in.
        package init(_ set: GmailTokenSet) {
            switch set.status {
            case .active: self = .connected
            case .revoked: self = .revoked
            case .rejected: self = .rejected
            case .disabled: self = .disabled
            }
        }
    }

    /// Stable for this change: every delivery of it carries the same one (a consumer's dedupe key).
    package var eventID: String
    package var kind: Kind
    package var userID: String
    package var status: Status
    package var previousStatus: Status
    /// A stable code of why (docs/events.md lists them).
    package var reason: String
    package var occurredAt: Date
    /// Increasing per user across the grant's whole life, so a consumer can order a user's events.
    package var sequence: Int64
    /// The Google account's `sub`, when known.
    package var googleSubject: String?

    /// Creates an event.
    package init(
        eventID: String, kind: Kind, userID: String, status: Status, previousStatus: Status, reason: String, occurredAt: Date, sequence: Int64,
        googleSubject: String?
    ) {
        self.eventID = eventID
        self.kind = kind
        self.userID = userID
        self.status = status
        self.previousStatus = previousStatus
        self.reason = reason
        self.occurredAt = occurredAt
        self.sequence = sequence
        self.googleSubject = googleSubject
    }

    /// The `Detail` document: the event as a consumer reads it, and as the outbox keeps it.
    package var detail: JSONValue {
        var fields: [String: JSONValue] = [
            "event_id": .string(eventID), "user_id": .string(userID), "status": .string(status.rawValue),
            "previous_status": .string(previousStatus.rawValue), "reason": .string(reason),
            "occurred_at": .string(RFC3339.string(from: occurredAt)), "sequence": .integer(sequence),
        ]
        if let googleSubject { fields["google_sub"] = .string(googleSubject) }
        return .object(fields)
    }

    /// The `Detail` document as text.
    package var detailText: String { String(decoding: detail.compactJSON() ?? [], as: UTF8.self) }

    /// Reads an event as the outbox keeps it: its detail plus its `detail_type`.
    init(stored fields: [String: JSONValue]) throws(JSONTypeMismatch) {
        func text(_ key: String) throws(JSONTypeMismatch) -> String {
            guard let value = try fields.string(key) else { throw JSONTypeMismatch(key: key) }
            return value
        }
        guard let kind = Kind(rawValue: try text("detail_type")) else { throw JSONTypeMismatch(key: "detail_type") }
        guard let status = Status(rawValue: try text("status")) else { throw JSONTypeMismatch(key: "status") }
        guard let previous = Status(rawValue: try text("previous_status")) else { throw JSONTypeMismatch(key: "previous_status") }
        guard let occurredAt = RFC3339.date(from: try text("occurred_at")) else { throw JSONTypeMismatch(key: "occurred_at") }
        guard let sequence = try fields.integer("sequence") else { throw JSONTypeMismatch(key: "sequence") }
        self.init(
            eventID: try text("event_id"), kind: kind, userID: try text("user_id"), status: status, previousStatus: previous,
            reason: try text("reason"), occurredAt: occurredAt, sequence: Int64(sequence), googleSubject: try fields.string("google_sub")
        )
    }

    /// The event as the outbox keeps it.
    var stored: JSONValue {
        guard case .object(var fields) = detail else { return detail }
        fields["detail_type"] = .string(kind.rawValue)
        return .object(fields)
    }
}
