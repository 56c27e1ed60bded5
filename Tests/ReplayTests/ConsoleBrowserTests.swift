import Foundation
import PayPulseTestSupport
import PayPulseTransport
import Testing

/// The console of `paypulse serve` in headless Chromium: what it shows after a connect,
/// after a security event the stand-in Google pushed, after its refresh button and after
/// its disconnect button, and that no token is on the page. Saves a screenshot (under `docs/` with `PAYPULSE_UPDATE_DOCS=1`).
@Suite("The local console in headless Chromium")
struct ConsoleBrowserTests {
    @Test("connect, refresh and disconnect as the console shows them")
    func console() async throws {
        let server = try await LocalServerProcess(binaryDirectory: FunctionProcess.binaryDirectory, arguments: ["--fake-google"])
        defer { _ = try? server.stop() }
        try await ServeRequests.seedUser(of: server)

        let browser = try await WebDriverBrowser()
        do {
            try await drive(browser, server: server)
        } catch {
            await browser.quit()
            throw error
        }
        await browser.quit()
    }

    private func drive(_ browser: WebDriverBrowser, server: LocalServerProcess) async throws {
        try await browser.open(server.baseURL + "/")
        #expect(try await browser.text(of: "#no-grants") == "No Gmail grants are stored yet.")

        // The app connects Gmail with the refresh token the stand-in Google knows by default.
        let stored = try await ServeRequests.connectLocalGrant(to: server)
        #expect(stored.status == 201, "\(stored.bodyText)")

        let row = "tr[data-user='user-1']"
        try await browser.open(server.baseURL + "/")
        #expect(try await browser.text(of: "\(row) .status") == "connected")
        #expect(try await browser.text(of: "\(row) td:nth-child(2)") == "jane.smith@gmail.com")
        // The client Google accepted, recorded with the grant: serve's local one.
        #expect(try await browser.text(of: "\(row) .client") == "paypulse-local-ios-client.apps.googleusercontent.com")
        #expect(try await browser.text(of: "\(row) .scopes")?.contains("https://www.googleapis.com/auth/gmail.readonly") == true)
        #expect(try await browser.text(of: "\(row) td:nth-child(1)")?.contains("Jane Smith") == true)
        #expect(try await browser.text(of: "\(row) .security-event") == "–")

        // Google tells of an event on the account: the stand-in pushes it to serve's receiver.
        let pushed = try await ServeRequests.securityEvent(#"{"type": "sessions-revoked", "user": "user-1"}"#, to: server)
        #expect(pushed.status == 200 && pushed.bodyText.contains(#""outcome":"delivered""#), "\(pushed.bodyText)")
        try await browser.open(server.baseURL + "/")
        let event = try await browser.text(of: "\(row) .security-event")
        #expect(event?.hasPrefix("sessions-revoked · 20") == true, "\(event ?? "no cell")")
        #expect(try await browser.text(of: "\(row) .status") == "connected", "sessions-revoked changes no grant")
        let page = try await browser.source()
        for secret in ["ya29.", "1//", "Bearer ", "eyJ"] { #expect(!page.contains(secret), "the page shows \(secret)…") }
        try save(try await browser.screenshot())

        try await browser.click("#run-refresh")
        let refreshed = try await browser.text(of: "#notice", within: .seconds(15)) { $0?.hasPrefix("Refresh run:") == true }
        #expect(refreshed?.hasPrefix("Refresh run: scanned 1,") == true, "\(refreshed ?? "no notice")")
        #expect(try await browser.text(of: "\(row) .status") == "connected")

        try await browser.click("\(row) button.danger")
        let disconnected = try await browser.text(of: "#notice", within: .seconds(15)) { $0?.hasPrefix("Disconnect") == true }
        #expect(disconnected == "Disconnected user-1.")
        #expect(try await browser.text(of: "\(row) .status")?.hasPrefix("disconnected") == true)
        #expect(try await browser.text(of: "\(row) button.danger") == nil, "no disconnect button on a disconnected grant")
        #expect(server.log.contains("POST /console/disconnect 303 "))
    }

    /// Keeps the screenshot in `.build/`, and in `docs/` when asked to.
    private func save(_ png: Data) throws {
        let root = ReplayManifest.eventsDirectory.deletingLastPathComponent()
        let build = root.appendingPathComponent(".build/console")
        try FileManager.default.createDirectory(at: build, withIntermediateDirectories: true)
        try png.write(to: build.appendingPathComponent("console.png"))
        if ProcessInfo.processInfo.environment["PAYPULSE_UPDATE_DOCS"] == "1" {
            try png.write(to: root.appendingPathComponent("docs/console.png"))
        }
    }
}
