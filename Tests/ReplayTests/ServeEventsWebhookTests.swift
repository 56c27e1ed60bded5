import Foundation
import PayPulseTestSupport
import PayPulseTransport
import Testing

/// `paypulse serve --events-webhook URL` through the built binary: each lifecycle event is
/// kept in the embedded store (the console and `paypulse events` list it) and POSTed to the
/// developer's service; one the service refuses is sent again, with the same id, by the next
/// refresh run.
@Suite("serve --events-webhook: local lifecycle events", .serialized)
struct ServeEventsWebhookTests {
    @Test("connect then disconnect: the webhook receives each event (a refused one again, same id), the console and paypulse events list them")
    func webhookConsoleAndCLI() async throws {
        // The developer's service: it refuses its first delivery, then takes every one.
        let webhook = try ScriptedHTTPServer { index, _ in index == 0 ? .respond(status: 500, body: "not yet") : .respond(status: 204) }
        defer { webhook.stop() }
        let server = try await LocalServerProcess(
            binaryDirectory: FunctionProcess.binaryDirectory, arguments: ["--fake-google", "--events-webhook", webhook.url + "/hooks/gmail", "--refresh-every", "1"]
        )
        defer { _ = try? server.stop() }
        try await ServeRequests.seedUser(of: server)
        #expect(try await ServeRequests.connectLocalGrant(to: server).status == 201)

        // The first delivery was refused: the refresh run (every second) sends it again.
        let deadline = ContinuousClock.now + .seconds(30)
        while webhook.requests.count < 2, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(200)) }
        let deliveries = webhook.requests.map { request in
            (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any] ?? [:]
        }
        #expect(deliveries.count >= 2, "the refused event was sent again: \(deliveries.count) deliveries; serve's log: \(server.log.suffix(600))")
        #expect(Set(deliveries.compactMap { $0["id"] as? String }).count == 1, "one event, one id")
        let detail = deliveries.first?["detail"] as? [String: Any] ?? [:]
        #expect(deliveries.first?["detail-type"] as? String == "Gmail Connected" && deliveries.first?["source"] as? String == "paypulse.gmail")
        #expect(detail["user_id"] as? String == "user-1" && detail["status"] as? String == "connected" && detail["previous_status"] as? String == "not_connected")
        #expect(detail["event_id"] as? String == deliveries.first?["id"] as? String)
        #expect(try LifecycleEventQueue.invalid(deliveries).isEmpty, "each delivery is an event the schema allows")
        #expect(webhook.requests.allSatisfy { $0.method == "POST" && $0.target == "/hooks/gmail" && !String(decoding: $0.body, as: UTF8.self).contains("1//local-dev-refresh") })

        // A disconnect from the console: delivered at once.
        let page = try await ServeRequests.consoleDisconnect("user-1", on: server)
        let settled = ContinuousClock.now + .seconds(10)
        while !webhook.requests.contains(where: { String(decoding: $0.body, as: UTF8.self).contains("Gmail Disconnected") }), ContinuousClock.now < settled {
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(webhook.requests.contains { String(decoding: $0.body, as: UTF8.self).contains("Gmail Disconnected") })

        // The console lists both, newest first; so does paypulse events.
        let console = try await CurlHTTPClient().execute(HTTPRequest(method: "GET", url: server.baseURL + "/")).bodyText
        let events = try #require(console.range(of: #"<table id="events">"#).map { String(console[$0.lowerBound...]) }, "no events table: \(page.prefix(300))")
        let disconnected = try #require(events.range(of: "Gmail Disconnected")), connected = try #require(events.range(of: "Gmail Connected"))
        #expect(disconnected.lowerBound < connected.lowerBound, "newest first")
        let cli = try await FunctionProcess.cli(["events"], environment: [
            "PAYPULSE_STORE": "embedded", "PAYPULSE_STATE_DIR": server.stateDirectory, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
        ])
        #expect(cli.status == 0, "\(cli.stderr)")
        let lines = cli.stdout.split(separator: "\n")
        #expect(lines.count == 2 && lines[0].contains("Gmail Disconnected") && lines[1].contains("Gmail Connected"), "\(cli.stdout)")
        #expect(lines.allSatisfy { $0.contains("user user-1") })
    }
}
