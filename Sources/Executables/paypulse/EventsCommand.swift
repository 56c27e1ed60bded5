#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ArgumentParser
import PayPulseApp
import PayPulseCoding
import PayPulseEmbedded

/// `paypulse events`: the lifecycle events the embedded store kept, newest first, one line
/// each (or their details as JSON lines). On AWS the events go to the EventBridge bus: a
/// rule subscribes to them (docs/events.md).
struct EventsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events", abstract: "List the lifecycle events the embedded store published, newest first."
    )

    @Option(help: "How many events at most.") var limit = 50
    @Option(help: "Only this user's events.") var user: String?
    @Flag(help: "Print each event's detail as one JSON line, as a subscriber receives it.") var json = false

    func validate() throws {
        guard (1...100_000).contains(limit) else { throw ValidationError("--limit must be 1-100000.") }
    }

    func run() async throws {
        let context = try await CLIContext.load()
        guard let table = try context.app.embeddedLifecycleEvents() else {
            throw CLIError("the \(context.storeDescription) publishes its events to the EventBridge bus PAYPULSE_EVENT_BUS names; subscribe with a rule (docs/events.md)")
        }
        // Filtered after the read: a user's events are a few among the newest.
        let rows = try await table.recent(limit: user == nil ? limit : 100_000)
        var printed = 0
        for row in rows where printed < limit {
            let detail = try? JSONValue.decode(Array(row.detail.utf8))
            if let user, detail?["user_id"]?.stringValue != user { continue }
            printed += 1
            if json {
                print(row.detail)
                continue
            }
            let field = { (key: String) -> String in
                switch detail?[key] {
                case .string(let text): text
                case .integer(let number): String(number)
                default: "-"
                }
            }
            print("\(field("occurred_at"))  \(row.detailType)  user \(field("user_id"))  \(field("previous_status")) -> \(field("status"))  \(field("reason"))  #\(field("sequence"))  \(row.eventID)")
        }
        if printed == 0 { print("no lifecycle events in the \(context.storeDescription)") }
    }
}
