/// Sends one HTTP request and returns the response; the seam every adapter talks through.
///
/// Implementations are safe to call concurrently, e.g. from a task group.
public protocol HTTPTransport: Sendable {
    /// Performs the exchange.
    /// - Throws: ``TransportError`` when no complete response arrived.
    func execute(_ request: HTTPRequest) async throws -> HTTPResponse
}

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

/// An ordered list of HTTP header fields with case-insensitive lookup.
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    /// One header field.
    public struct Field: Sendable, Equatable {
        /// The name as written.
        public var name: String
        /// The value, trimmed.
        public var value: String

        /// Creates a field.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    private var fields: [Field]

    /// Creates headers from fields in order.
    public init(_ fields: [Field] = []) { self.fields = fields }

    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { Field(name: $0.0, value: $0.1) }
    }

    /// Appends a field, keeping any other field of the same name.
    public mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces every field of this name with one field.
    public mutating func replaceOrAdd(name: String, value: String) {
        remove(name: name)
        add(name: name, value: value)
    }

    /// Removes every field of this name.
    public mutating func remove(name: String) {
        fields.removeAll { $0.name.lowercased() == name.lowercased() }
    }

    /// The first value of the named field, compared without regard to case.
    public subscript(name: String) -> String? {
        let wanted = name.lowercased()
        return fields.first { $0.name.lowercased() == wanted }?.value
    }

    /// Whether the named field is present.
    public func contains(name: String) -> Bool { self[name] != nil }

    /// The number of fields.
    public var count: Int { fields.count }

    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }
}
