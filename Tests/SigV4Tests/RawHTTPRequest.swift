import PayPulseAWS

/// A raw HTTP/1.1 request in the suite's `request.txt` layout: request line, header lines
/// (a line starting with a space or tab continues the previous header), a blank line, body.
/// Lines end in LF, as in the suite files.
struct RawHTTPRequest: Sendable {
    var method: String
    /// The request target as written, e.g. `/example space/?a=b` (may hold spaces).
    var target: String
    var version: String
    /// Header values are kept raw: leading spaces and folded lines (joined with `\n`)
    /// stay, so rendering reproduces the file byte for byte.
    var headers: [SigV4Header]
    var body: [UInt8]

    struct ParseError: Error, CustomStringConvertible {
        var description: String
    }

    init(parsing bytes: [UInt8]) throws {
        var lines: [String] = []
        var body: [UInt8] = []
        var start = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            if end == start {  // the blank line: everything after it is the body
                body = Array(bytes[(end + 1)...])
                break
            }
            lines.append(String(decoding: bytes[start..<end], as: UTF8.self))
            start = end + 1
        }

        guard let requestLine = lines.first,
              let firstSpace = requestLine.firstIndex(of: " "),
              let lastSpace = requestLine.lastIndex(of: " "), firstSpace < lastSpace
        else { throw ParseError(description: "bad request line: \(lines.first ?? "<none>")") }
        // The target is everything between the first and last space: the suite has
        // targets with unencoded spaces (`GET /example space/ HTTP/1.1`).
        method = String(requestLine[..<firstSpace])
        target = String(requestLine[requestLine.index(after: firstSpace)..<lastSpace])
        version = String(requestLine[requestLine.index(after: lastSpace)...])

        var headers: [SigV4Header] = []
        for line in lines.dropFirst() {
            if line.first == " " || line.first == "\t" {
                guard !headers.isEmpty else { throw ParseError(description: "continuation first: \(line)") }
                headers[headers.count - 1].value += "\n" + line
            } else if let colon = line.firstIndex(of: ":") {
                headers.append(SigV4Header(
                    name: String(line[..<colon]),
                    value: String(line[line.index(after: colon)...])
                ))
            } else {
                throw ParseError(description: "header line without a colon: \(line)")
            }
        }
        self.headers = headers
        self.body = body
    }

    /// The request to hand to the signer: the target split at its first `?`.
    var sigV4Request: SigV4Request {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        return SigV4Request(
            method: method,
            path: String(parts[0]),
            query: parts.count > 1 ? String(parts[1]) : "",
            headers: headers,
            body: body
        )
    }

    /// This request as text with `headers` in place of its own, in the suite's layout.
    func rendered(headers: [SigV4Header]) -> String {
        let head = "\(method) \(target) \(version)\n"
            + headers.map { "\($0.name):\($0.value)\n" }.joined()
            + "\n"
        return head + String(decoding: body, as: UTF8.self)
    }
}
