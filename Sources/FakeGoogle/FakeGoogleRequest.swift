import Foundation

/// A request as ``FakeGoogleServer`` received it, with its form decoded, so a test can
/// check what the client sent (a `client_id`, never a `client_secret`).
package struct FakeGoogleRequest: Sendable {
    /// The endpoint hit, or `nil` for any other path.
    package var endpoint: FakeGoogleEndpoint?
    /// The method, e.g. `POST`.
    package var method: String
    /// The path, without the query.
    package var path: String
    /// The `Content-Type` header, if any.
    package var contentType: String?
    /// The decoded form fields of the body (the last one wins for a repeated name).
    package var form: [String: String]
    /// The decoded query parameters.
    package var query: [String: String]
    /// The body as sent.
    package var body: String

    init(_ raw: ScriptedHTTPServer.Request) {
        let parts = raw.target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        path = parts.first.map(String.init) ?? ""
        query = parts.count > 1 ? Self.decodeForm(String(parts[1])) : [:]
        endpoint = FakeGoogleEndpoint(rawValue: String(path.dropFirst()))
        method = raw.method
        contentType = raw.headers["content-type"]
        body = String(decoding: raw.body, as: UTF8.self)
        form = Self.isForm(contentType) ? Self.decodeForm(body) : [:]
    }

    /// A request received by another server (``FakeGoogleEndpoints``), `target` relative to
    /// the fake's root (`/token?…`), header names lowercased.
    init(method: String, target: String, headers: [String: String], body: [UInt8]) {
        self.init(ScriptedHTTPServer.Request(method: method, target: target, headers: headers, body: body))
    }

    /// Whether the body is declared `application/x-www-form-urlencoded`.
    package var isForm: Bool { Self.isForm(contentType) }

    private static func isForm(_ contentType: String?) -> Bool {
        contentType?.lowercased().split(separator: ";").first?.trimmingCharacters(in: .whitespaces) == "application/x-www-form-urlencoded"
    }

    /// `a=1&b=x%20y` decoded; `+` is a space, as in HTML forms.
    static func decodeForm(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") where !pair.isEmpty {
            let sides = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (side: Substring) in
                String(side).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(side)
            }
            fields[decode(sides[0])] = sides.count > 1 ? decode(sides[1]) : ""
        }
        return fields
    }
}
