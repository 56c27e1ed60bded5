import Foundation
import PayPulseTestSupport
import PayPulseTransport
import Testing

/// `paypulse serve --fake-google`'s writes (`/fake-google/grants`, `/fake-google/risc/events`,
/// Google's revoke and token endpoints) refuse what a web page open on the developer's
/// machine could send them: a foreign `Origin` or `Sec-Fetch-Site`, and on the JSON routes a
/// form's content type. The functions and curl, which send none of these, are served.
@Suite("serve --fake-google: cross-site posts are refused", .serialized)
struct ServeCrossSiteTests {
    private static func post(_ path: String, to server: LocalServerProcess, headers: [String: String], body: String) async throws -> HTTPResponse {
        let fields = HTTPHeaders(headers.sorted { $0.key < $1.key }.map { HTTPHeaders.Field(name: $0.key, value: $0.value) })
        return try await CurlHTTPClient().execute(HTTPRequest(method: "POST", url: server.baseURL + path, headers: fields, body: Array(body.utf8)))
    }

    @Test("a foreign Origin, a cross-site fetch or a form's content type is 403 cross_site_request and changes nothing")
    func refused() async throws {
        let server = try await LocalServerProcess(binaryDirectory: FunctionProcess.binaryDirectory, arguments: ["--fake-google"])
        defer { _ = try? server.stop() }
        try await ServeRequests.seedUser(of: server)
        #expect(try await ServeRequests.connectLocalGrant(to: server).status == 201)

        let disable = #"{"type": "account-disabled", "user": "user-1"}"#
        let grant = #"{"refresh_token": "1//cross-site", "email": "cross@gmail.com", "scope": "openid"}"#
        let json = "application/json"
        let attempts: [(path: String, headers: [String: String], body: String)] = [
            ("/fake-google/risc/events", ["Origin": "https://evil.example", "Content-Type": json], disable),
            ("/fake-google/risc/events", ["Content-Type": "text/plain"], disable),
            ("/fake-google/risc/events", ["Content-Type": "text/plain; charset=utf-8"], disable),
            ("/fake-google/risc/events", ["Origin": "null", "Content-Type": json], disable),
            ("/fake-google/risc/events", ["Sec-Fetch-Site": "cross-site", "Content-Type": json], disable),
            ("/fake-google/risc/events", ["Origin": server.baseURL.replacingOccurrences(of: "http://", with: "https://"), "Content-Type": json], disable),
            ("/fake-google/grants", ["Origin": "https://evil.example", "Content-Type": json], grant),
            ("/fake-google/grants", ["Content-Type": "application/x-www-form-urlencoded"], grant),
            ("/fake-google/grants", ["Content-Type": "multipart/form-data; boundary=x"], grant),
            ("/fake-google/revoke", ["Origin": "https://evil.example", "Content-Type": "application/x-www-form-urlencoded"], "token=1%2F%2Flocal-dev-refresh"),
        ]
        for attempt in attempts {
            let response = try await Self.post(attempt.path, to: server, headers: attempt.headers, body: attempt.body)
            let fields = ServeRISCEventsTests.fields(response)
            #expect(response.status == 403, "\(attempt.path) \(attempt.headers): \(response.bodyText)")
            #expect(fields["error"] as? String == "cross_site_request", "\(attempt.path) \(attempt.headers): \(response.bodyText)")
            #expect((fields["message"] as? String)?.contains("web page") == true, "\(response.bodyText)")
        }
        #expect(try await ServeRISCEventsTests.connected(server) == true, "no refused post disabled the account")
        #expect(!server.log.contains("/v1/google/security-events"), "nothing was pushed")

        // The server's own origin, and no origin at all (curl, the functions), are served.
        let sameOrigin = try await Self.post("/fake-google/grants", to: server, headers: ["Origin": server.baseURL, "Content-Type": json], body: grant)
        #expect(sameOrigin.status == 201, "\(sameOrigin.bodyText)")
        let pushed = try await Self.post(
            "/fake-google/risc/events", to: server, headers: ["Content-Type": json, "Sec-Fetch-Site": "same-origin"], body: disable
        )
        #expect(ServeRISCEventsTests.fields(pushed)["receiver_status"] as? Int == 202, "\(pushed.bodyText)")
        #expect(try await ServeRISCEventsTests.connected(server) == false)
    }
}
