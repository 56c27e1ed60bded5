import Logging
import PayPulseCoding
import PayPulsePorts
import PayPulseTransport

/// ``IssuerKeySource`` over HTTP: an identity provider's JWKS, at a URL given or found
/// through the issuer's OpenID Connect discovery document, or Google's RISC keys and issuer
/// through the RISC discovery document.
///
/// - Only HTTPS leaves the machine: plain `http://` is allowed to a loopback host alone
///   (a local issuer, `paypulse serve --issuer`, a test), for the URL given and for the
///   `jwks_uri` a discovery document names.
/// - Discovery (OpenID Connect Discovery 1.0 §4) reads
///   `{issuer}/.well-known/openid-configuration` once; its `issuer` must equal the
///   configured one (§4.3), so a document cannot move the keys to another issuer's.
/// - RISC discovery is the other way round: the document sits at a configured URL and
///   tells the issuer, which the answer carries (``PayPulsePorts/PublishedKeySet/issuer``).
///   It is read again with every key fetch, and the answer's `maxAge` is the shorter of the
///   document's and the key set's, so the caller's key cache holds issuer, `jwks_uri` and
///   keys each no longer than its own lifetime (a key fetch happens at most once a minute).
/// - An answer is read whole up to 64 KiB; a larger one, a non-200 or a failed exchange
///   is ``IssuerKeysUnavailable``, logged here with its reason (never a token).
package struct HTTPIssuerKeySource: IssuerKeySource {
    /// Where the keys are.
    package enum Location: Sendable, Equatable {
        /// The JWKS URL itself (`PAYPULSE_JWT_JWKS_URL`).
        case keySet(String)
        /// The issuer whose discovery document names the JWKS URL (`PAYPULSE_JWT_ISSUER` alone).
        case discovery(issuer: String)
        /// A RISC discovery document (RISC 1.0 §4), which names the issuer and the JWKS URL.
        case riscConfiguration(String)

        /// Google's RISC discovery document.
        package static let googleRISC = Location.riscConfiguration("https://accounts.google.com/.well-known/risc-configuration")
    }

    /// The largest answer read, in bytes.
    static let maximumAnswerSize = 64 * 1024

    private let location: Location
    private let transport: any HTTPTransport
    private let logger: Logger
    private let discovered = DiscoveredKeySetURL()

    /// Creates a source.
    /// - Parameters:
    ///   - location: The JWKS URL, or the issuer to discover it from.
    ///   - transport: The HTTP client (the one that trusts the system's CAs).
    ///   - logger: Receives each failed fetch with its reason.
    package init(location: Location, transport: any HTTPTransport, logger: Logger) {
        self.location = location
        self.transport = transport
        self.logger = logger
    }

    /// Whether a URL may carry keys: `https://`, or `http://` to a loopback host.
    package static func isAllowed(url: String) -> Bool {
        if url.hasPrefix("https://") { return url.count > "https://".count }
        return URLHost.isLoopbackHTTP(url)
    }

    package func fetchKeySet() async throws(IssuerKeysUnavailable) -> PublishedKeySet {
        do {
            switch location {
            case .keySet(let url): return try await keySet(at: url)
            case .discovery(let issuer): return try await keySet(at: discoveredKeySetURL(issuer: issuer))
            case .riscConfiguration(let url): return try await riscKeySet(configuration: url)
            }
        } catch {
            logger.warning("issuer keys unavailable", metadata: ["reason": "\(error.reason)"])
            throw error
        }
    }

    /// The JWKS at `url`, with its max-age.
    private func keySet(at url: String) async throws(IssuerKeysUnavailable) -> PublishedKeySet {
        let response = try await get(url, what: "the JWKS")
        return PublishedKeySet(document: response.body, maxAge: Self.maxAge(cacheControl: response.headers["cache-control"]))
    }

    /// The keys the RISC document names, with its issuer and the shorter of the two lifetimes.
    private func riscKeySet(configuration url: String) async throws(IssuerKeysUnavailable) -> PublishedKeySet {
        let document = try await get(url, what: "the RISC configuration")
        guard case .object(let fields)? = try? JSONValue.decode(document.body) else {
            throw IssuerKeysUnavailable(reason: "the RISC configuration is not a JSON object")
        }
        guard let issuer = fields["issuer"]?.stringValue, !issuer.isEmpty else {
            throw IssuerKeysUnavailable(reason: "the RISC configuration names no issuer")
        }
        guard let keySetURL = fields["jwks_uri"]?.stringValue, Self.isAllowed(url: keySetURL) else {
            throw IssuerKeysUnavailable(reason: "the RISC configuration has no jwks_uri over HTTPS")
        }
        let keys = try await get(keySetURL, what: "the JWKS")
        let lifetimes = [document, keys].compactMap { Self.maxAge(cacheControl: $0.headers["cache-control"]) }
        return PublishedKeySet(document: keys.body, maxAge: lifetimes.min(), issuer: issuer)
    }

    /// The JWKS URL the issuer's OpenID Connect discovery document names, read once.
    private func discoveredKeySetURL(issuer: String) async throws(IssuerKeysUnavailable) -> String {
        if let known = await discovered.url { return known }
        let base = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
        let response = try await get(base + "/.well-known/openid-configuration", what: "the discovery document")
        guard case .object(let fields)? = try? JSONValue.decode(response.body) else {
            throw IssuerKeysUnavailable(reason: "the discovery document is not a JSON object")
        }
        guard fields["issuer"]?.stringValue == issuer else {
            throw IssuerKeysUnavailable(reason: "the discovery document names another issuer")
        }
        guard let url = fields["jwks_uri"]?.stringValue, Self.isAllowed(url: url) else {
            throw IssuerKeysUnavailable(reason: "the discovery document has no jwks_uri over HTTPS")
        }
        await discovered.remember(url)
        return url
    }

    private func get(_ url: String, what: String) async throws(IssuerKeysUnavailable) -> HTTPResponse {
        guard Self.isAllowed(url: url) else { throw IssuerKeysUnavailable(reason: "\(what) URL is not HTTPS") }
        let response: HTTPResponse
        do {
            response = try await transport.execute(HTTPRequest(method: "GET", url: url, headers: ["accept": "application/json"], timeout: .seconds(5)))
        } catch {
            throw IssuerKeysUnavailable(reason: "fetching \(what) failed: \(error)")
        }
        guard response.status == 200 else { throw IssuerKeysUnavailable(reason: "\(what) answered HTTP \(response.status)") }
        guard response.body.count <= Self.maximumAnswerSize else {
            throw IssuerKeysUnavailable(reason: "\(what) is larger than \(Self.maximumAnswerSize / 1024) KiB")
        }
        return response
    }

    /// `max-age` of a `Cache-Control` value; 0 for `no-cache` / `no-store`; `nil` when it
    /// says nothing of either.
    static func maxAge(cacheControl: String?) -> Int? {
        guard let cacheControl else { return nil }
        var maxAge: Int?
        for directive in cacheControl.lowercased().split(separator: ",") {
            let trimmed = String(directive.filter { $0 != " " && $0 != "\t" })
            if trimmed == "no-cache" || trimmed == "no-store" { return 0 }
            if trimmed.hasPrefix("max-age="), let seconds = Int(trimmed.dropFirst("max-age=".count)), seconds >= 0 { maxAge = seconds }
        }
        return maxAge
    }
}

/// The JWKS URL a discovery document named, kept for the process's life.
private actor DiscoveredKeySetURL {
    var url: String?
    func remember(_ url: String) { self.url = url }
}
