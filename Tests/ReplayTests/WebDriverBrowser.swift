import Foundation
import PayPulseFakeGoogle
import PayPulseTestSupport
import PayPulseTransport

/// Headless Chromium driven over the W3C WebDriver protocol (Debian's `chromium` and
/// `chromium-driver`), with just what the console test needs: open a page, read an
/// element's text, click, take a screenshot.
final class WebDriverBrowser {
    private let driver: SpawnedProcess.Running
    private let endpoint: String
    private let session: String
    private let transport = CurlHTTPClient()

    /// The binaries, or why they are missing.
    static func binaries() throws -> (browser: String, driver: String) {
        // Debian's packages, then Homebrew's on a Mac (`brew install --cask chromium chromedriver`).
        let browsers = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/Applications/Chromium.app/Contents/MacOS/Chromium"]
        let drivers = ["/usr/bin/chromedriver", "/opt/homebrew/bin/chromedriver", "/usr/local/bin/chromedriver"]
        guard let browser = browsers.first(where: FileManager.default.isExecutableFile(atPath:)),
              let driver = drivers.first(where: FileManager.default.isExecutableFile(atPath:))
        else { throw ReplayError("headless Chromium is not installed: run scripts/ensure-deps.sh --with-browser (Debian's chromium, chromium-driver)") }
        return (browser, driver)
    }

    init() async throws {
        let (browser, driverPath) = try Self.binaries()
        (driver, endpoint) = try await Self.startDriver(driverPath)
        var started: String?
        for _ in 0..<100 where started == nil {
            try await Task.sleep(for: .milliseconds(100))
            let capabilities: [String: Any] = [
                "capabilities": ["alwaysMatch": [
                    "browserName": "chrome",
                    "goog:chromeOptions": [
                        "binary": browser,
                        "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1100,520"],
                    ],
                ]],
            ]
            guard let reply = try? await Self.call(transport, "POST", endpoint + "/session", capabilities) else { continue }
            started = (reply["value"] as? [String: Any])?["sessionId"] as? String
            if started == nil { throw ReplayError("chromedriver refused a session: \(reply)") }
        }
        guard let started else {
            driver.terminate()
            throw ReplayError("chromedriver did not answer at \(endpoint)")
        }
        session = started
    }

    /// Starts chromedriver on a port the kernel gives it, and where it listens.
    ///
    /// A port found free here and bound there later could be taken in between by a parallel
    /// test, so chromedriver binds port 0 and prints the port. But with `--port=0` it takes
    /// the port on one address family and then binds the same number on IPv4, which another
    /// process may hold: it then exits with "IPv4 port not available" (1 start in 30 here,
    /// and a CI run). Each start is a new draw, so an exit before the announcement is tried
    /// again, up to five starts; the last one's words are in the error.
    private static func startDriver(_ path: String) async throws -> (SpawnedProcess.Running, String) {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("chromedriver-\(UUID().uuidString)").path
        defer { for suffix in [".out", ".err"] { try? FileManager.default.removeItem(atPath: scratch + suffix) } }
        var lastFailure = ""
        for _ in 0..<5 {
            let driver = try SpawnedProcess.Running.start(
                [path, "--port=0"], environment: ["PATH": "/usr/bin:/bin:/opt/homebrew/bin:/usr/local/bin", "HOME": NSTemporaryDirectory()],
                stdoutPath: scratch + ".out", stderrPath: scratch + ".err"
            )
            do {
                let announced = try await driver.awaitOutput(
                    matching: #"started successfully on port [0-9]+"#, in: scratch + ".out", within: TestTime.scaled(.seconds(10))
                )
                return (driver, "http://127.0.0.1:\(announced.split(separator: " ").last ?? "")")
            } catch {
                // awaitOutput has reaped the driver either way: asking it again is ECHILD.
                let words = [".out", ".err"].compactMap { try? String(contentsOfFile: scratch + $0, encoding: .utf8) }.joined()
                lastFailure = "\(error); it said: \(words.suffix(600))"
                guard let failure = error as? SpawnedProcess.Failure, failure.childEnded else {
                    throw ReplayError("chromedriver did not start: \(lastFailure)")  // alive but silent (now stopped): not a lost port
                }
            }
        }
        throw ReplayError("chromedriver ended before listening, five times: \(lastFailure)")
    }

    /// Opens `url`.
    func open(_ url: String) async throws {
        _ = try await command("POST", "/url", ["url": url])
    }

    /// The rendered text of the first element `selector` matches, or `nil` when none does.
    func text(of selector: String) async throws -> String? {
        guard let element = try await element(selector) else { return nil }
        return try await command("GET", "/element/\(element)/text", nil)["value"] as? String
    }

    /// The text of `selector` once `accepts` it (a click's navigation may still be under
    /// way), or the last text read after `timeout`.
    func text(of selector: String, within timeout: Duration, until accepts: (String?) -> Bool) async throws -> String? {
        let deadline = ContinuousClock.now + timeout
        var text = try? await self.text(of: selector)
        while !accepts(text), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
            text = try? await self.text(of: selector)
        }
        return text
    }

    /// Clicks the first element `selector` matches.
    func click(_ selector: String) async throws {
        guard let element = try await element(selector) else { throw ReplayError("nothing matches \(selector)") }
        _ = try await command("POST", "/element/\(element)/click", [:])
    }

    /// The page's HTML as the browser holds it.
    func source() async throws -> String {
        try await command("GET", "/source", nil)["value"] as? String ?? ""
    }

    /// A PNG of the window.
    func screenshot() async throws -> Data {
        guard let base64 = try await command("GET", "/screenshot", nil)["value"] as? String, let png = Data(base64Encoded: base64) else {
            throw ReplayError("no screenshot")
        }
        return png
    }

    /// Ends the session and the driver.
    func quit() async {
        _ = try? await command("DELETE", "", nil)
        driver.terminate()
        _ = try? driver.wait()
    }

    private func element(_ selector: String) async throws -> String? {
        let reply = try await command("POST", "/element", ["using": "css selector", "value": selector])
        // W3C's element reference key.
        return (reply["value"] as? [String: Any])?["element-6066-11e4-a52e-4f735466cecf"] as? String
    }

    private func command(_ method: String, _ path: String, _ body: [String: Any]?) async throws -> [String: Any] {
        try await Self.call(transport, method, endpoint + "/session/\(session)" + path, body)
    }

    private static func call(_ transport: CurlHTTPClient, _ method: String, _ url: String, _ body: [String: Any]?) async throws -> [String: Any] {
        let bytes = try body.map { Array(try JSONSerialization.data(withJSONObject: $0)) } ?? []
        let response = try await transport.execute(
            HTTPRequest(method: method, url: url, headers: ["Content-Type": "application/json"], body: bytes, timeout: .seconds(60))
        )
        return (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
    }
}
