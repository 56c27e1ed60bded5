/// An HTTP response: status, headers and the whole body.
public struct HTTPResponse: Sendable, Equatable {
    /// The status code, e.g. 200.
    public var status: Int
    /// Header fields of the final response (interim `100 Continue` blocks dropped).
    public var headers: HTTPHeaders
    /// The body bytes.
    public var body: [UInt8]

    /// Creates a response.
    public init(status: Int, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The body decoded as UTF-8, invalid sequences repaired.
    public var bodyText: String { String(decoding: body, as: UTF8.self) }
}
