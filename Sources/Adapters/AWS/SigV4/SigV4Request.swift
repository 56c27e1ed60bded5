/// The parts of an HTTP request that SigV4 signs.
///
/// `path` and `query` are the raw strings of the request target, as they are sent on the
/// wire (split at the first `?`); the signer does its own canonical encoding. The headers
/// must include `Host`.
public struct SigV4Request: Sendable, Hashable {
    /// The HTTP method, e.g. `POST`.
    public var method: String
    /// The raw path of the request target, e.g. `/` or `/a b/c`.
    public var path: String
    /// The raw query string without the leading `?`; empty when there is none.
    public var query: String
    /// The header fields in the order they are sent; duplicates allowed.
    public var headers: [SigV4Header]
    /// The body bytes; empty when there is none.
    public var body: [UInt8]

    /// Creates a request to sign.
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - path: The raw path of the request target.
    ///   - query: The raw query string without the leading `?`.
    ///   - headers: The header fields in order; must include `Host`.
    ///   - body: The body bytes.
    public init(
        method: String, path: String, query: String = "",
        headers: [SigV4Header] = [], body: [UInt8] = []
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }
}
