import Foundation
import PayPulseHandlers
import Synchronization

/// Who may use the console: a browser at the server's own address (not a DNS-rebinding
/// page, whose `Host` is its own name) pressing a button of a page this server sent (the
/// form carries a token chosen at start, so no cookie is needed). It also tells a request
/// a page of another site could have sent, which the stand-in Google's writes refuse.
final class ConsoleGuard: Sendable {
    /// The form field that carries ``formToken``.
    static let tokenField = "console_token"

    /// The token every console form carries: 32 random bytes in hex, new each run.
    let formToken: String
    /// The host names the console answers to, lowercased, IPv6 in brackets.
    private let names: Set<String>
    /// The port listened on; known once the server listens when `--port 0` chose it.
    private let port: Mutex<Int?>

    /// - Parameters:
    ///   - host: The `--host` given; it is accepted beside the loopback names.
    ///   - port: The port, or `nil` until ``listening(on:)`` says it.
    init(host: String, port: Int?) {
        var generator = SystemRandomNumberGenerator()
        formToken = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
        names = ["127.0.0.1", "localhost", "[::1]", Self.bracketed(host).lowercased()]
        self.port = Mutex(port == 0 ? nil : port)
    }

    /// Records the port the server listens on.
    func listening(on port: Int) { self.port.withLock { $0 = port } }

    /// Whether `authority` (the request's `Host`) names this server.
    func allows(authority: String?) -> Bool {
        guard let authority = authority?.lowercased(), let port = port.withLock({ $0 }) else { return false }
        let name: Substring, given: Int?
        if let colon = authority.lastIndex(of: ":"), !authority[colon...].contains("]") {
            name = authority[..<colon]
            given = Int(authority[authority.index(after: colon)...])
        } else {
            name = Substring(authority)
            given = 80
        }
        return given == port && names.contains(String(name))
    }

    /// Whether a request could come from a web page of another site: a browser names the
    /// page on a cross-origin POST (`Origin`, `Sec-Fetch-Site`), where servers and curl send
    /// neither; and a route that takes JSON (`mediaType` given) gets a form's content type
    /// only from a form or a no-CORS fetch.
    func isCrossSite(origin: String?, fetchSite: String?, mediaType: MediaType?) -> Bool {
        if let origin {
            let lowered = origin.lowercased()
            guard lowered.hasPrefix("http://"), allows(authority: String(lowered.dropFirst("http://".count))) else { return true }
        }
        if let site = fetchSite?.lowercased(), site != "same-origin", site != "none" { return true }
        return mediaType.map { Self.formTypes.contains($0.essence) } ?? false
    }

    /// The content types an HTML form (or a no-CORS fetch) can send without asking first.
    private static let formTypes: Set<String> = ["application/x-www-form-urlencoded", "multipart/form-data", "text/plain"]

    /// Whether `token` is this run's form token (compared in constant time).
    func accepts(token: String?) -> Bool {
        guard let token else { return false }
        let expected = Array(formToken.utf8), sent = Array(token.utf8)
        guard expected.count == sent.count else { return false }
        return zip(expected, sent).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// `host` as it appears in a URL or a `Host` header: an IPv6 address in brackets.
    static func bracketed(_ host: String) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    }
}
