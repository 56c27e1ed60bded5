import Foundation
import Logging
import PayPulseEmbedded
import PayPulsePorts
import PayPulseTestSupport
import PayPulseTransport
import Testing

/// Replayed events' requests sent to a running `paypulse serve`, as the app would send them.
enum ServeRequests {
    /// Sends the request of the event file at `path` (below `events/`), with `body` in place
    /// of the event's own when given.
    static func send(_ path: String, to server: LocalServerProcess, body: [UInt8]? = nil) async throws -> HTTPResponse {
        guard let request = ServeReplayCase.request(of: ReplayManifest.bytes(path)) else { throw ReplayError("\(path) is not an API Gateway event") }
        var headers = HTTPHeaders()
        for (name, value) in request.headers { headers.add(name: name, value: value) }
        let url = server.baseURL + request.path + (request.query.isEmpty ? "" : "?" + request.query)
        return try await CurlHTTPClient().execute(HTTPRequest(method: request.method, url: url, headers: headers, body: body ?? request.body))
    }

    /// Puts the replay manifest's user (`user-1`) into the embedded store `server` uses.
    static func seedUser(of server: LocalServerProcess) async throws {
        let seed = ReplayManifest.shared.user
        let database = try EmbeddedDatabase(stateDirectory: server.stateDirectory, logger: Logger(label: "seed"))
        try await EmbeddedUserDirectory(database: database, logger: Logger(label: "seed"))
            .putUser(UserRecord(userID: seed.user_id, name: seed.name, email: seed.email, createdOn: seed.created_on))
    }

    /// The app connects Gmail as `user-1`: the first-connection event's request, with the
    /// refresh token the stand-in Google knows by default.
    static func connectLocalGrant(to server: LocalServerProcess) async throws -> HTTPResponse {
        let body = #"{"access_token":"ya29.console-test","refresh_token":"1//local-dev-refresh","expires_in":3599}"#
        return try await send("store-tokens/v2-json-first-connection.json", to: server, body: Array(body.utf8))
    }

    /// Presses the console's disconnect for `user` (with the page's `console_token`) and
    /// returns the page shown after it, which holds the notice.
    static func consoleDisconnect(_ user: String, on server: LocalServerProcess) async throws -> String {
        let client = CurlHTTPClient()
        let page = try await client.execute(HTTPRequest(method: "GET", url: server.baseURL + "/"))
        let marker = #"name="console_token" value=""#
        let formToken = try #require(page.bodyText.range(of: marker).map { String(page.bodyText[$0.upperBound...].prefix { $0 != "\"" }) })
        let pressed = try await client.execute(HTTPRequest(
            method: "POST", url: server.baseURL + "/console/disconnect", headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: Array("user_id=\(user)&console_token=\(formToken)".utf8)
        ))
        #expect(pressed.status == 303)
        return try await client.execute(HTTPRequest(method: "GET", url: server.baseURL + "/")).bodyText
    }

    /// `POST /fake-google/risc/events` with `body`: the stand-in Google pushes one event to
    /// the server's own receiver.
    static func securityEvent(_ body: String, to server: LocalServerProcess, method: String = "POST") async throws -> HTTPResponse {
        try await CurlHTTPClient().execute(HTTPRequest(
            method: method, url: server.baseURL + "/fake-google/risc/events", headers: ["Content-Type": "application/json"], body: Array(body.utf8)
        ))
    }
}
