/// One HTTP request as a handler sees it, whatever event shape (API Gateway REST or HTTP
/// API) it arrived in.
package struct APIRequest: Sendable, Equatable {
    /// The largest body any route reads: 64 KiB. Token bodies are a few kilobytes, and the
    /// runtime refuses a larger body with 413 before decoding or copying it.
    package static let maximumBodyBytes = 64 * 1024

    /// The method, upper-case, e.g. `POST`.
    package var method: String
    /// The path, e.g. `/v1/auth/gmail-tokens` (no stage prefix, no query).
    package var path: String
    /// Header fields; names compare without regard to case.
    package var headers: APIHeaders
    /// Query string parameters (the last value wins for repeated keys).
    package var query: [String: String]
    /// The body, base64-decoded when the event said so.
    package var body: [UInt8]
    /// Claims an API Gateway JWT or Cognito authorizer already verified, as strings
    /// (numbers and booleans arrive stringified); `nil` when there was no authorizer.
    package var authorizerClaims: [String: String]?

    /// Creates a request.
    package init(
        method: String, path: String, headers: APIHeaders = APIHeaders(), query: [String: String] = [:],
        body: [UInt8] = [], authorizerClaims: [String: String]? = nil
    ) {
        self.method = method.uppercased()
        self.path = path
        self.headers = headers
        self.query = query
        self.body = body
        self.authorizerClaims = authorizerClaims
    }
}

/// Header fields with case-insensitive names: `sam local generate-event` writes `Header1`,
/// HTTP APIs send lowercase names, REST APIs `Authorization`.
package struct APIHeaders: Sendable, Equatable {
    private var fields: [String: String]

    /// Creates headers; later duplicates (by case-insensitive name) win.
    package init(_ fields: [String: String] = [:]) {
        var lowered: [String: String] = [:]
        for (name, value) in fields { lowered[name.lowercased()] = value }
        self.fields = lowered
    }

    /// The value of a field.
    package subscript(name: String) -> String? {
        get { fields[name.lowercased()] }
        set { fields[name.lowercased()] = newValue }
    }

    /// All fields, names lowercased.
    package var all: [String: String] { fields }
}

/// A `Content-Type` value split into its essence and its charset parameter.
package struct MediaType: Equatable, Sendable {
    /// `type/subtype`, lowercased; empty when there was no header.
    package let essence: String
    /// The `charset` parameter, lowercased and unquoted, if any.
    package let charset: String?

    /// Reads `header` (`nil` when the request had none).
    package init(_ header: String?) {
        let parts = (header ?? "").split(separator: ";").map { $0.trimmed(of: " \t") }
        essence = parts.first?.lowercased() ?? ""
        charset = parts.dropFirst().compactMap { parameter -> String? in
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmed(of: " \t\"") }
            guard pair.count == 2, pair[0].lowercased() == "charset" else { return nil }
            return pair[1].lowercased()
        }.first
    }
}

extension Substring {
    /// Without the leading and trailing scalars that `set` holds. Scalars, not characters:
    /// "\r\n" is one character, which a set naming "\r" and "\n" would not contain.
    func trimmed(of set: String) -> String {
        let dropped = Set(set.unicodeScalars)
        guard let first = unicodeScalars.firstIndex(where: { !dropped.contains($0) }),
              let last = unicodeScalars.lastIndex(where: { !dropped.contains($0) })
        else { return "" }
        return String(Substring(unicodeScalars[first...last]))
    }
}
