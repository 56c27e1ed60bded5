import Foundation

/// moto's EventBridge seen from a subscriber: a bus, a rule on it forwarding every
/// `paypulse.gmail` event to an SQS queue (docs/events.md's sample rule), and what reaches
/// the queue, each event checked against `docs/lifecycle-event.schema.json`. Driven through
/// boto3 and jsonschema (`Tests/Fixtures/eventbridge_sqs.py`), clients independent of ours.
package struct LifecycleEventQueue: Sendable {
    /// moto's endpoint.
    package let endpoint: String
    /// The bus the functions put to (`PAYPULSE_EVENT_BUS`).
    package let bus: String
    /// The queue the rule forwards to.
    package let queueURL: String

    /// Creates the bus `bus`, its rule and queue on moto at `endpoint`.
    package init(endpoint: String, bus: String) throws {
        self.endpoint = endpoint
        self.bus = bus
        guard let url = try Self.fixture(["op": "setup", "endpoint": endpoint, "bus": bus])["queue_url"] as? String else {
            throw FixtureFailure(complaint: "setup named no queue")
        }
        queueURL = url
    }

    /// Every event the queue holds, removed from it, and how any of them breaks the schema.
    package func drain() throws -> (events: [[String: Any]], invalid: [String]) {
        let answer = try Self.fixture(["op": "drain", "endpoint": endpoint, "queue_url": queueURL, "schema": Self.schema])
        return (answer["events"] as? [[String: Any]] ?? [], answer["invalid"] as? [String] ?? ["the fixture answered no list"])
    }

    /// How `events` (read elsewhere, as EventBridge delivers them) break the schema.
    package static func invalid(_ events: [[String: Any]]) throws -> [String] {
        try fixture(["op": "validate", "events": events, "schema": schema])["invalid"] as? [String] ?? ["the fixture answered no list"]
    }

    private static var schema: String { BuiltExecutables.repositoryRoot.appendingPathComponent("docs/lifecycle-event.schema.json").path }

    private static func fixture(_ request: [String: Any]) throws -> [String: Any] {
        let script = BuiltExecutables.repositoryRoot.appendingPathComponent("Tests/Fixtures/eventbridge_sqs.py")
        let (answer, complaint) = try PythonScript.run(script, request: request)
        guard let answer else { throw FixtureFailure(complaint: complaint) }
        return answer
    }

    /// The fixture failed; what it wrote on standard error.
    package struct FixtureFailure: Error, CustomStringConvertible {
        package let complaint: String
        package var description: String { "eventbridge_sqs.py: \(complaint)" }
    }
}
