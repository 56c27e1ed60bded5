import Foundation
import PayPulseDomain

/// What the soak's lifecycle events must show, read as a subscriber reads them: every
/// delivery of an `event_id` the same event; one event per `sequence` of a user; each user's
/// events, in `sequence` order, a chain of states (each event's `previous_status` is the
/// status the one before left, from the seeded `connected`) that ends where the grant ends.
/// A lost event breaks the chain; so does one for a change that did not happen.
enum SoakLifecycleEvents {
    /// What breaks these rules, one line each.
    static func violations(_ deliveries: [[String: Any]], finalStates: [Int: FinalState]) -> [String] {
        var violations: [String] = []
        var byID: [String: [String: Any]] = [:]
        for delivery in deliveries {
            guard let detail = delivery["detail"] as? [String: Any], let id = detail["event_id"] as? String else {
                violations.append("an event without a detail or event_id: \(delivery)")
                continue
            }
            var event = detail
            event["detail-type"] = delivery["detail-type"]
            if let earlier = byID[id], !same(earlier, event) { violations.append("event_id \(id) delivered as two events: \(earlier) and \(event)") }
            byID[id] = event
        }
        let byUser = Dictionary(grouping: byID.values) { $0["user_id"] as? String ?? "?" }
        for user in 0..<SoakWorkload.userCount {
            let id = SoakWorkload.userID(user)
            let events = (byUser[id] ?? []).sorted { ($0["sequence"] as? Int ?? 0) < ($1["sequence"] as? Int ?? 0) }
            let sequences = events.compactMap { $0["sequence"] as? Int }
            if Set(sequences).count != events.count { violations.append("\(id): two events share a sequence: \(sequences)") }
            var status = LifecycleEvent.Status.connected.rawValue
            for event in events {
                let previous = event["previous_status"] as? String ?? "?"
                if previous != status {
                    violations.append("\(id): \(event["detail-type"] ?? "?") #\(event["sequence"] ?? "?") follows \(previous), but the events before left \(status): \(chain(events))")
                }
                status = event["status"] as? String ?? "?"
            }
            let final: String
            switch finalStates[user] {
            case .absent: final = LifecycleEvent.Status.disconnected.rawValue
            case .present(let set, _): final = set.lifecycle?.deleteAfterPublishDays != nil ? "disconnected" : LifecycleEvent.Status(set).rawValue
            case nil: final = "?"
            }
            if final != status { violations.append("\(id): the grant ends \(final), its events end \(status): \(chain(events))") }
        }
        return violations
    }

    /// The kinds delivered, for the report.
    static func kinds(_ deliveries: [[String: Any]]) -> Set<String> { Set(deliveries.compactMap { $0["detail-type"] as? String }) }

    private static func same(_ one: [String: Any], _ other: [String: Any]) -> Bool {
        let encode = { (object: [String: Any]) in try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) }
        return encode(one) == encode(other)
    }

    private static func chain(_ events: [[String: Any]]) -> String {
        events.map { "\($0["previous_status"] ?? "?")->\($0["status"] ?? "?") (\($0["detail-type"] ?? "?"))" }.joined(separator: ", ")
    }
}
