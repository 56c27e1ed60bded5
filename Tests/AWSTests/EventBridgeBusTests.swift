import Foundation
import PayPulseAWS
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// `PutEvents` as EventBridge answers it: the request onto the named bus, a 200 whose
/// entries fail one by one (`FailedEntryCount`), a refusal of the whole put, and a bus that
/// never answers, given up on within the caller's budget. Against moto for the request and
/// a plain success; scripted for the answers moto never gives.
@Suite("EventBridge PutEvents: the lifecycle events' bus")
struct EventBridgeBusTests {
    static let entries = [
        LifecycleBusEntry(id: "e1", source: "paypulse.gmail", detailType: "Gmail Connected", detail: #"{"event_id":"e1"}"#, time: Date(timeIntervalSince1970: 1_764_300_000)),
        LifecycleBusEntry(id: "e2", source: "paypulse.gmail", detailType: "Gmail Revoked", detail: #"{"event_id":"e2"}"#, time: Date(timeIntervalSince1970: 1_764_300_001)),
    ]

    private func bus(_ server: ScriptedHTTPServer) throws -> EventBridgeBus {
        EventBridgeBus(client: try AWSTestClients.jsonClient(.eventBridge, endpoint: server.url, timeout: .seconds(5)), bus: "paypulse-lifecycle")
    }

    @Test("moto takes both entries onto the bus, and the rule's queue receives them")
    func moto() async throws {
        let server = try await MotoServer.shared()
        let queue = try LifecycleEventQueue(endpoint: server.endpoint, bus: "bus-\(UUID().uuidString.prefix(8))")
        let bus = EventBridgeBus(client: try AWSTestClients.jsonClient(.eventBridge, endpoint: server.endpoint), bus: queue.bus)
        #expect(try await bus.put(Self.entries, within: .seconds(10)) == [nil, nil])
        let received = try queue.drain().events
        #expect(received.map { $0["detail-type"] as? String } == ["Gmail Connected", "Gmail Revoked"])
    }

    @Test("one entry failed in a 200: only it is a failure, refused or not by its code; the request names the bus and the time")
    func partialFailure() async throws {
        let answer = #"{"FailedEntryCount":1,"Entries":[{"EventId":"11111111-aaaa"},{"ErrorCode":"InternalFailure","ErrorMessage":"try again"}]}"#
        let server = try ScriptedHTTPServer { _, _ in .respond(status: 200, headers: ["Content-Type": "application/x-amz-json-1.1"], body: answer) }
        defer { server.stop() }
        #expect(try await bus(server).put(Self.entries, within: .seconds(10)) == [nil, LifecycleBusFailure(code: "InternalFailure", refused: false)])
        let request = try #require(server.requests.first)
        #expect(request.headers.first { $0.key.lowercased() == "x-amz-target" }?.value == "AWSEvents.PutEvents")
        let body = try #require(try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
        let sent = try #require(body["Entries"] as? [[String: Any]])
        #expect(sent.map { $0["EventBusName"] as? String } == ["paypulse-lifecycle", "paypulse-lifecycle"])
        #expect(sent.first?["Time"] as? Int == 1_764_300_000 && sent.first?["Detail"] as? String == #"{"event_id":"e1"}"#)
    }

    @Test("a refused put (permission) is told apart from one that failed for now")
    func refusal() async throws {
        let denied = try ScriptedHTTPServer { _, _ in
            .respond(status: 400, headers: ["Content-Type": "application/x-amz-json-1.1"], body: #"{"__type":"AccessDeniedException","message":"not authorized"}"#)
        }
        defer { denied.stop() }
        await #expect(throws: LifecycleBusFailure(code: "AccessDeniedException", refused: true)) { try await bus(denied).put(Self.entries, within: .seconds(10)) }
        let malformed = try ScriptedHTTPServer { _, _ in
            .respond(status: 200, body: #"{"FailedEntryCount":1,"Entries":[{"ErrorCode":"MalformedDetail"},{"EventId":"2"}]}"#)
        }
        defer { malformed.stop() }
        #expect(try await bus(malformed).put(Self.entries, within: .seconds(10)) == [LifecycleBusFailure(code: "MalformedDetail", refused: true), nil])
    }

    /// The client's own policy would try four times, five seconds each (20 s against a bus
    /// that never answers): the put's budget bounds every attempt and wait together.
    @Test("a bus that never answers is given up on within the put's budget, as a failure for now")
    func hangingBusWithinBudget() async throws {
        let hanging = try ScriptedHTTPServer { _, _ in .stall }
        defer { hanging.stop() }
        let bus = EventBridgeBus(
            client: try AWSTestClients.jsonClient(.eventBridge, endpoint: hanging.url, retryPolicy: .aws, timeout: .seconds(5)), bus: "paypulse-lifecycle"
        )
        let started = ContinuousClock.now
        await #expect(throws: LifecycleBusFailure.self) { try await bus.put(Self.entries, within: .seconds(1)) }
        let took = ContinuousClock.now - started
        #expect(took >= .milliseconds(900) && took < .seconds(3), "took \(took)")
        #expect(hanging.requests.count <= 2, "no attempt started once the budget was spent: \(hanging.requests.count)")
    }
}
