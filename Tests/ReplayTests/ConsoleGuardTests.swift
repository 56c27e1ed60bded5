import Foundation
import PayPulseTestSupport
import PayPulseTransport
import Testing

/// Who may use the console of `paypulse serve`: only a browser at the server's own address
/// (not a DNS-rebinding page), pressing buttons of a page the server sent.
@Suite("The console's guard")
struct ConsoleGuardTests {
    private let client = CurlHTTPClient()

    private func port(of server: LocalServerProcess) throws -> String {
        try #require(server.baseURL.split(separator: ":").last.map(String.init))
    }

    private func post(_ server: LocalServerProcess, _ path: String, form: String, headers: [(String, String)] = []) async throws -> HTTPResponse {
        var fields = HTTPHeaders()
        fields.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        for (name, value) in headers { fields.add(name: name, value: value) }
        return try await client.execute(HTTPRequest(method: "POST", url: server.baseURL + path, headers: fields, body: Array(form.utf8)))
    }

    /// The console page and the form token it carries.
    private func page(_ server: LocalServerProcess, host: String? = nil) async throws -> (response: HTTPResponse, token: String?) {
        var headers = HTTPHeaders()
        if let host { headers.add(name: "Host", value: host) }
        let response = try await client.execute(HTTPRequest(method: "GET", url: server.baseURL + "/", headers: headers))
        let marker = #"name="console_token" value=""#
        let token = response.bodyText.range(of: marker).map { range in
            String(response.bodyText[range.upperBound...].prefix { $0 != "\"" })
        }
        return (response, token)
    }

    @Test("a foreign Host (a DNS-rebinding page) gets 403 from the console and its buttons; the API still answers")
    func foreignHost() async throws {
        let server = try await LocalServerProcess(arguments: ["--fake-google"])
        defer { _ = try? server.stop() }
        let evil = "evil.example:\(try port(of: server))"
        let (_, token) = try await page(server)
        let spoofed = [("Host", evil), ("Origin", "http://\(evil)")]

        let listing = try await page(server, host: evil).response
        #expect(listing.status == 403, "GET / with Host \(evil): \(listing.status)")
        #expect(!listing.bodyText.contains("<table") && !listing.bodyText.contains("<html"))
        let refresh = try await post(server, "/console/refresh", form: "console_token=\(token ?? "")", headers: spoofed)
        #expect(refresh.status == 403, "refresh: \(refresh.status)")
        let disconnect = try await post(server, "/console/disconnect", form: "user_id=user-1&console_token=\(token ?? "")", headers: spoofed)
        #expect(disconnect.status == 403, "disconnect: \(disconnect.status)")
        #expect(!server.log.contains("refresh run:"))

        let health = try await client.execute(HTTPRequest(method: "GET", url: server.baseURL + "/healthz", headers: ["Host": evil]))
        #expect(health.status == 200)
        let profile = try await client.execute(HTTPRequest(method: "GET", url: server.baseURL + "/v1/user/me", headers: ["Host": evil]))
        #expect(profile.status == 401, "the API answers any Host and asks for a JWT: \(profile.status)")
    }

    @Test("the buttons need the page's token; the loopback names with the port are the console's")
    func formToken() async throws {
        let server = try await LocalServerProcess(arguments: ["--fake-google"])
        defer { _ = try? server.stop() }
        let port = try port(of: server)
        for host in ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)"] {
            #expect(try await page(server, host: host).response.status == 200, "Host \(host)")
        }
        #expect(try await page(server, host: "localhost:1").response.status == 403, "another port")
        let token = try #require(try await page(server).token)
        #expect(token.count >= 32)

        #expect(try await post(server, "/console/refresh", form: "").status == 403, "no token")
        #expect(try await post(server, "/console/refresh", form: "console_token=wrong").status == 403, "a wrong token")
        #expect(try await post(server, "/console/disconnect", form: "user_id=user-1").status == 403, "no token")
        let pressed = try await post(server, "/console/refresh", form: "console_token=\(token)", headers: [("Origin", server.baseURL)])
        #expect(pressed.status == 303, "\(pressed.status): \(pressed.bodyText)")
    }

    @Test("the console page allows only its own style (Content-Security-Policy)")
    func contentSecurityPolicy() async throws {
        let server = try await LocalServerProcess(arguments: [])
        defer { _ = try? server.stop() }
        let response = try await page(server).response
        let policy = try #require(response.headers["content-security-policy"], "no Content-Security-Policy")
        #expect(policy.contains("default-src 'none'"))
        let nonce = try #require(policy.range(of: #"style-src 'nonce-[A-Za-z0-9+/=]+'"#, options: .regularExpression).map {
            String(policy[$0].dropFirst("style-src 'nonce-".count).dropLast())
        })
        #expect(response.bodyText.contains(#"<style nonce="\#(nonce)">"#))
        #expect(!policy.contains("unsafe-inline") && !policy.contains("script-src"))
    }

    @Test("disconnecting an invalid id from the console says the id is invalid, as text")
    func invalidID() async throws {
        let server = try await LocalServerProcess(arguments: ["--fake-google"])
        defer { _ = try? server.stop() }
        let token = try #require(try await page(server).token)
        let hostile = "\u{0600}<b>x\u{0600}</b>"
        let encoded = try #require(hostile.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let pressed = try await post(server, "/console/disconnect", form: "user_id=\(encoded)&console_token=\(token)")
        #expect(pressed.status == 303)
        let notice = try await page(server).response.bodyText
        #expect(notice.contains("is not a valid user id"), "\(notice)")
        #expect(!notice.contains("HTTP 401"))
        #expect(!notice.contains("<b>x"))
    }
}
