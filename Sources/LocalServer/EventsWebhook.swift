import Foundation
import Logging
import PayPulseCoding
import PayPulsePorts
import PayPulseTransport

/// `paypulse serve --events-webhook URL`: each lifecycle event, once the embedded table
/// keeps it, is also POSTed to the developer's own service, shaped as EventBridge delivers
/// it to a target (`version`, `id`, `detail-type`, `source`, `time`, `detail`). An event the
/// webhook does not answer 2xx stays pending in its grant, like one a bus did not take, and
/// goes again with the next change of that grant or the next refresh run (the same `id`).
struct EventsWebhook: LifecycleEventBus {
    let inner: any LifecycleEventBus
    let url: String
    let transport: any HTTPTransport
    let logger: Logger

    var maxEntriesPerPut: Int { inner.maxEntriesPerPut }

    func put(_ entries: [LifecycleBusEntry], within budget: Duration) async throws(LifecycleBusFailure) -> [LifecycleBusFailure?] {
        let deadline = ContinuousClock.now + budget
        var answers = try await inner.put(entries, within: budget)
        for (index, entry) in entries.enumerated() where answers[index] == nil {
            let left = deadline - ContinuousClock.now
            answers[index] = left > .zero ? await post(entry, timeout: min(left, .seconds(5))) : LifecycleBusFailure(code: "webhook not tried in time", refused: false)
        }
        return answers
    }

    /// The event as EventBridge hands it to a target.
    static func envelope(_ entry: LifecycleBusEntry) -> JSONValue {
        let detail = (try? JSONValue.decode(Array(entry.detail.utf8))) ?? .string(entry.detail)
        return .object([
            "version": .string("0"), "id": .string(entry.id), "detail-type": .string(entry.detailType), "source": .string(entry.source),
            "time": .string(ISO8601DateFormatter().string(from: entry.time)), "region": .string("local"), "resources": .array([]),
            "detail": detail,
        ])
    }

    private func post(_ entry: LifecycleBusEntry, timeout: Duration) async -> LifecycleBusFailure? {
        let request = HTTPRequest(
            method: "POST", url: url, headers: ["content-type": "application/json"], body: Self.envelope(entry).compactJSON() ?? [],
            timeout: timeout, freshConnection: true
        )
        do {
            let answer = try await transport.execute(request)
            guard (200..<300).contains(answer.status) else {
                logger.warning("the events webhook answered \(answer.status); the event stays pending", metadata: ["event_id": "\(entry.id)"])
                return LifecycleBusFailure(code: "webhook HTTP \(answer.status)", refused: false)
            }
            return nil
        } catch {
            logger.warning("the events webhook could not be reached; the event stays pending", metadata: ["event_id": "\(entry.id)", "reason": "\(error)"])
            return LifecycleBusFailure(code: "webhook unreachable", refused: false)
        }
    }
}
