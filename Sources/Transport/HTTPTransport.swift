/// Sends one HTTP request and returns the response; the seam every adapter talks through.
///
/// Implementations are safe to call concurrently, e.g. from a task group.
package protocol HTTPTransport: Sendable {
    /// Performs the exchange.
    /// - Throws: ``TransportError`` when no complete response arrived.
    func execute(_ request: HTTPRequest) async throws -> HTTPResponse
}

/// An HTTP request as a value: method, absolute URL, headers and body.
package struct HTTPRequest: Sendable, Equatable {
    /// The method, e.g. `GET`, `POST`, `DELETE`.
    package var method: String
    /// An absolute `http://` or `https://` URL.
    package var url: String
    /// Header fields to send. The transport adds `Host` and `Content-Length` itself.
    package var headers: HTTPHeaders
    /// The body; empty sends none.
    package var body: [UInt8]
    /// The limit for the whole exchange; `nil` waits as long as it takes (a long poll).
    package var timeout: Duration?
    /// Open a new connection instead of reusing an idle one. libcurl silently sends a
    /// request again when a reused connection dies before any byte of the answer, so a
    /// call whose repetition the caller must see (to read a second answer right) asks
    /// for a connection of its own.
    package var freshConnection: Bool

    /// Creates a request.
    package init(
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
package struct HTTPResponse: Sendable, Equatable {
    /// The status code, e.g. 200.
    package var status: Int
    /// Header fields of the final response (interim `100 Continue` blocks dropped).
    package var headers: HTTPHeaders
    /// The body bytes.
    package var body: [UInt8]

    /// Creates a response.
    package init(status: Int, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The body decoded as UTF-8, invalid sequences repaired.
    package var bodyText: String { String(decoding: body, as: UTF8.self) }
}

/// An ordered list of HTTP header fields with case-insensitive lookup.
package struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    /// One header field.
    package struct Field: Sendable, Equatable {
        /// The name as written.
        package var name: String
        /// The value, trimmed.
        package var value: String

        /// Creates a field.
        package init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    private var fields: [Field]

    /// Creates headers from fields in order.
    package init(_ fields: [Field] = []) { self.fields = fields }

    package init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { Field(name: $0.0, value: $0.1) }
    }

    /// Appends a field, keeping any other field of the same name.
    package mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces every field of this name with one field.
    package mutating func replaceOrAdd(name: String, value: String) {
        remove(name: name)
        add(name: name, value: value)
    }

    /// Removes every field of this name.
    package mutating func remove(name: String) {
        fields.removeAll { $0.name.lowercased() == name.lowercased() }
    }

    /// The first value of the named field, compared without regard to case.
    package subscript(name: String) -> String? {
        let wanted = name.lowercased()
        return fields.first { $0.name.lowercased() == wanted }?.value
    }

    /// Whether the named field is present.
    package func contains(name: String) -> Bool { self[name] != nil }

    /// The number of fields.
    package var count: Int { fields.count }

    package func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }
}
