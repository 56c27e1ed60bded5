/// An HTTP request as a value: method, absolute URL, headers and body.
public struct HTTPRequest: Sendable, Equatable {
    /// The method, e.g. `GET`, `POST`, `DELETE`.
    public var method: String
    /// An absolute `http://` or `https://` URL.
    public var url: String
    /// Header fields to send. The transport adds `Host` and `Content-Length` itself.
    public var headers: HTTPHeaders
    /// The body; empty sends none.
    public var body: [UInt8]
    /// The limit for the whole exchange; `nil` waits as long as it takes (a long poll).
    public var timeout: Duration?
    /// Open a new connection instead of reusing an idle one. libcurl silently sends a
    /// request again when a reused connection dies before any byte of the answer, so a
    /// call whose repetition the caller must see (to read a second answer right) asks
    /// for a connection of its own.
    public var freshConnection: Bool

    /// Creates a request.
    public init(
        method: String, url: String, headers: HTTPHeaders = [:], body: [UInt8] = [], timeout: Duration? = .seconds(10),
        freshConnection: Bool = false
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.freshConnection = freshConnection
    }
}
