/// The security event types a RISC stream can ask Google for, by URI, with the short names
/// people type (`tokens-revoked`).
package enum RISCEventType {
    /// The prefix of the RISC types.
    package static let riscPrefix = "https://schemas.openid.net/secevent/risc/event-type/"
    /// The prefix of the two OAuth types.
    package static let oauthPrefix = "https://schemas.openid.net/secevent/oauth/event-type/"

    /// Google's supported list, the stream's default: five RISC types and the two OAuth
    /// ones. (`account-purged` is in RISC 1.0 but not in Google's list.)
    package static let googleSupported: [String] =
        ["sessions-revoked", "account-disabled", "account-enabled", "account-credential-change-required", "verification"].map { riscPrefix + $0 }
        + ["tokens-revoked", "token-revoked"].map { oauthPrefix + $0 }

    /// The URI a name stands for: a short name of Google's list, or a full `https://` URI
    /// taken as it is (Google decides what it delivers); `nil` for anything else.
    package static func uri(named name: String) -> String? {
        if name.hasPrefix("https://") { return name.count > "https://".count ? name : nil }
        return googleSupported.first { shortName(of: $0) == name }
    }

    /// The short name of a URI under either prefix, else the URI itself.
    package static func shortName(of uri: String) -> String {
        for prefix in [riscPrefix, oauthPrefix] where uri.hasPrefix(prefix) && uri.count > prefix.count {
            return String(uri.dropFirst(prefix.count))
        }
        return uri
    }
}
