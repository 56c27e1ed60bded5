/// Google's rule for a stream's receiver, checked before asking: an `https://` URL (on a
/// domain the Cloud project has authorized, which only Google can check). A local fake is
/// the one exception: a loopback `http://` receiver while the API itself is on loopback.
enum RISCReceiverRule {
    /// Why Google would refuse `receiver` when managed through `apiBase`; `nil` when it
    /// may be asked.
    static func problem(receiver: String, apiBase: String) -> String? {
        if receiver.hasPrefix("https://") {
            return host(receiver, scheme: "https://")?.isEmpty == false ? nil : "the receiver must be an https:// URL with a host and no user name: \(receiver)"
        }
        if isLoopbackHTTP(receiver), isLoopbackHTTP(apiBase) { return nil }
        return "the receiver must be an https:// URL on a domain authorized in the Google Cloud project "
            + "(Google refuses anything else): \(receiver)"
    }

    /// Whether `url` is `http://` to 127.0.0.0/8 (four decimal octets), `localhost` or `[::1]`.
    static func isLoopbackHTTP(_ url: String) -> Bool {
        guard let host = host(url, scheme: "http://") else { return false }
        if host == "localhost" || host == "::1" { return true }
        // A name such as 127.evil.example is not loopback.
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets.first == "127" && octets.allSatisfy { $0.count <= 3 && UInt8($0) != nil }
    }

    /// The host of a `scheme` URL (brackets of an IPv6 literal removed); `nil` for another
    /// scheme or one with user information.
    private static func host(_ url: String, scheme: String) -> Substring? {
        guard url.hasPrefix(scheme) else { return nil }
        let authority = url.dropFirst(scheme.count).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.contains("@") else { return nil }
        if authority.hasPrefix("[") { return authority.dropFirst().prefix { $0 != "]" } }
        return authority.prefix { $0 != ":" }
    }
}
