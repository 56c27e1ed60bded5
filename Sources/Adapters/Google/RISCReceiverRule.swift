import PayPulseTransport

/// Google's rule for a stream's receiver, checked before asking: an `https://` URL (on a
/// domain the Cloud project has authorized, which only Google can check). A local fake is
/// the one exception: a loopback `http://` receiver while the API itself is on loopback.
enum RISCReceiverRule {
    /// Why Google would refuse `receiver` when managed through `apiBase`; `nil` when it
    /// may be asked.
    static func problem(receiver: String, apiBase: String) -> String? {
        if receiver.hasPrefix("https://") {
            return URLHost.of(receiver, scheme: "https://")?.isEmpty == false ? nil : "the receiver must be an https:// URL with a host and no user name: \(receiver)"
        }
        if URLHost.isLoopbackHTTP(receiver), URLHost.isLoopbackHTTP(apiBase) { return nil }
        return "the receiver must be an https:// URL on a domain authorized in the Google Cloud project "
            + "(Google refuses anything else): \(receiver)"
    }
}
