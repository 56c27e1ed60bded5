/// The host of a URL as the checks that let plain HTTP reach loopback read it (the issuer
/// key source, the RISC receiver rule): one reading, so no check is fooled by a host that
/// another would read differently (`127.0.0.1.attacker.example`, `user@127.0.0.1`).
package enum URLHost {
    /// The host of a `scheme` URL (the brackets of an IPv6 literal removed); `nil` for
    /// another scheme or an authority with user information.
    package static func of(_ url: String, scheme: String) -> Substring? {
        guard url.hasPrefix(scheme) else { return nil }
        let authority = url.dropFirst(scheme.count).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.contains("@") else { return nil }
        if authority.hasPrefix("[") { return authority.dropFirst().prefix { $0 != "]" } }
        return authority.prefix { $0 != ":" }
    }

    /// Whether `url` is `http://` to 127.0.0.0/8 (four decimal octets), `localhost` or `[::1]`.
    package static func isLoopbackHTTP(_ url: String) -> Bool {
        guard let host = of(url, scheme: "http://") else { return false }
        if host == "localhost" || host == "::1" { return true }
        // A name such as 127.evil.example is not loopback.
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets.first == "127" && octets.allSatisfy { $0.count <= 3 && UInt8($0) != nil }
    }
}
