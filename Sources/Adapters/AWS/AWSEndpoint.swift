/// A parsed `http(s)://host[:port][/path]` endpoint: what the signer needs (host, path)
/// and what the transport needs (the URL).
struct AWSEndpoint: Sendable, Equatable {
    /// The URL to POST to.
    let url: String
    /// The `Host` header value: host, plus port when it is not the scheme's default.
    let host: String
    /// The request path, `/` when the endpoint has none.
    let path: String

    /// Parses an endpoint, or returns `nil` when it is not an absolute http(s) URL.
    init?(_ string: String) {
        let scheme: String
        if string.hasPrefix("https://") {
            scheme = "https"
        } else if string.hasPrefix("http://") {
            scheme = "http"
        } else {
            return nil
        }
        let rest = string.dropFirst(scheme.count + 3)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.isEmpty, !authority.contains("@") else { return nil }
        var path = String(rest.dropFirst(authority.count).prefix { $0 != "?" && $0 != "#" })
        if path.isEmpty { path = "/" }
        let defaultPort = scheme == "https" ? ":443" : ":80"
        host = authority.hasSuffix(defaultPort) ? String(authority.dropLast(defaultPort.count)) : String(authority)
        self.path = path
        url = "\(scheme)://\(authority)\(path)"
    }
}
