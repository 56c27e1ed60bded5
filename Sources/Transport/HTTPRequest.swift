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

    /// Creates a request.
    public init(
        method: String, url: String, headers: HTTPHeaders = [:], body: [UInt8] = [], timeout: Duration? = .seconds(10)
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}
