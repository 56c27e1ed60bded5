#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseCoding
import PayPulsePorts

/// The lifecycle events' bus on EventBridge: `PutEvents` of up to 10 entries onto one bus
/// (its name or ARN), over ``AWSJSONClient`` (made with ``AWSService/eventBridge``), which
/// retries throttling and server faults within the caller's budget. A 200 answer can still fail some entries
/// (`FailedEntryCount`): each is told apart, and only those are put again.
package struct EventBridgeBus: LifecycleEventBus {
    private let client: AWSJSONClient
    private let bus: String

    /// `PutEvents`: IAM `events:PutEvents` on the bus.
    package static let putEventsOperation = AWSOperation(.eventBridge, "PutEvents", on: .bus)

    /// The codes that say an entry will never be taken as it is, or not from us: an
    /// operator's business (an alarm), not a retry's. The rest (`InternalFailure`,
    /// throttling, an unreachable bus) fail for now.
    static let refusingCodes: Set<String> = [
        "AccessDeniedException", "NotAuthorizedForSourceException", "ValidationException", "InvalidArgument", "MalformedDetail",
        "ResourceNotFoundException", "UnrecognizedClientException", "InvalidSignatureException", "KMSAccessDeniedException",
    ]

    /// Creates the bus `bus` (a name or an ARN) over `client`.
    package init(client: AWSJSONClient, bus: String) {
        self.client = client
        self.bus = bus
    }

    package var maxEntriesPerPut: Int { 10 }

    package func put(_ entries: [LifecycleBusEntry], within budget: Duration) async throws(LifecycleBusFailure) -> [LifecycleBusFailure?] {
        let output: PutEventsOutput
        do {
            output = try await client.call(Self.putEventsOperation, PutEventsInput(entries: entries, bus: bus), within: budget)
        } catch let error as AWSError {
            throw LifecycleBusFailure(code: error.type, refused: Self.refusingCodes.contains(error.type))
        } catch {
            throw LifecycleBusFailure(code: "unreachable", refused: false)
        }
        // One answer per entry, in order; an answer of another length is read as none.
        guard output.results.count == entries.count else { throw LifecycleBusFailure(code: "unreadable answer", refused: false) }
        return output.results.map { code in code.map { LifecycleBusFailure(code: $0, refused: Self.refusingCodes.contains($0)) } }
    }
}

/// `PutEvents`'s request: the entries, each onto the bus.
struct PutEventsInput: AWSJSONInput {
    var entries: [LifecycleBusEntry]
    var bus: String

    var json: JSONValue {
        .object(["Entries": .array(entries.map { entry in
            .object([
                "Source": .string(entry.source), "DetailType": .string(entry.detailType), "Detail": .string(entry.detail),
                "EventBusName": .string(bus), "Time": .integer(Int64(entry.time.timeIntervalSince1970.rounded(.down))),
            ])
        })])
    }
}

/// `PutEvents`'s answer: per entry, in order, `nil` when accepted (it has an `EventId`),
/// else its `ErrorCode`.
struct PutEventsOutput: AWSJSONOutput {
    var results: [String?]

    init(json fields: [String: JSONValue]) throws(JSONTypeMismatch) {
        var results: [String?] = []
        for item in try fields.array("Entries") ?? [] {
            guard case .object(let entry) = item else { throw JSONTypeMismatch(key: "Entries") }
            if try entry.string("EventId") != nil, try entry.string("ErrorCode") == nil {
                results.append(nil)
            } else {
                results.append(try entry.string("ErrorCode") ?? "InternalFailure")
            }
        }
        self.results = results
    }
}
