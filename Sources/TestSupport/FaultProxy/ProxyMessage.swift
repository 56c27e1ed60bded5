/// An HTTP/1.1 message as the proxy relays it: start line, header fields in order, and the
/// whole body (de-chunked).
struct ProxyMessage: Sendable {
    var startLine: String
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    /// The first value of a field, by case-insensitive name.
    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The status of a response start line (`HTTP/1.1 200 OK`).
    var status: Int? {
        let parts = startLine.split(separator: " ")
        return parts.count > 1 ? Int(parts[1]) : nil
    }

    /// The request target without the query (`/token?x` → `/token`).
    var path: String {
        let parts = startLine.split(separator: " ")
        guard parts.count > 1 else { return "" }
        return String(parts[1].split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0])
    }

    /// The message on the wire with a `Content-Length` for the body (or for `announced`
    /// bytes, to play a truncation) and the given `Connection` mode; hop-by-hop framing of
    /// the original is dropped.
    func serialized(connection: String, announced: Int? = nil) -> [UInt8] {
        var text = startLine + "\r\n"
        for field in headers where !["content-length", "transfer-encoding", "connection", "keep-alive"].contains(field.name.lowercased()) {
            text += "\(field.name): \(field.value)\r\n"
        }
        text += "Content-Length: \(announced ?? body.count)\r\nConnection: \(connection)\r\n\r\n"
        return Array(text.utf8) + body
    }

    /// Parses a head (without the blank line).
    init?(head: String, body: [UInt8] = []) {
        var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        guard !lines.isEmpty, !lines[0].isEmpty else { return nil }
        startLine = lines.removeFirst()
        headers = lines.compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let value = line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
            return (String(line[..<colon]), String(value))
        }
        self.body = body
    }

    init(startLine: String, headers: [(name: String, value: String)], body: [UInt8]) {
        self.startLine = startLine
        self.headers = headers
        self.body = body
    }
}
