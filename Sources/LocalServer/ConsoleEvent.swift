import Foundation
import PayPulseCoding
import PayPulseEmbedded

/// One lifecycle event as the console lists it: what the embedded store's table kept, its
/// detail read back (no token, no address: the detail holds none).
struct ConsoleEvent: Sendable, Equatable {
    var detailType: String
    var userID: String
    var status: String
    var previousStatus: String
    var reason: String
    var occurredAt: String
    var eventID: String

    /// The newest `limit` events of `table`.
    static func recent(in table: EmbeddedLifecycleEvents, limit: Int = 50) async throws -> [ConsoleEvent] {
        try await table.recent(limit: limit).map { row in
            let detail = try? JSONValue.decode(Array(row.detail.utf8))
            let text = { (key: String) in detail?[key]?.stringValue ?? "–" }
            return ConsoleEvent(
                detailType: row.detailType, userID: text("user_id"), status: text("status"), previousStatus: text("previous_status"),
                reason: text("reason"), occurredAt: text("occurred_at"), eventID: row.eventID
            )
        }
    }
}
