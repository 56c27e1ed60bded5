#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseCoding

/// A handler's answer: status, headers and a JSON body. The runtime encodes it for the
/// event shape it answers (API Gateway payload 1.0 or 2.0).
package struct APIResponse: Sendable, Equatable {
    /// The HTTP status.
    package var status: Int
    /// Header fields; `content-type: application/json` is present when there is a body.
    package var headers: [String: String]
    /// The JSON body, or empty (RFC 8935's 202).
    package var body: String

    /// Creates a response with a JSON body, or with none when `body` is empty (then no
    /// content type: an empty body is not a JSON document).
    package init(status: Int, headers: [String: String] = [:], body: String) {
        self.status = status
        var headers = headers
        if !body.isEmpty { headers["content-type"] = "application/json" }
        self.headers = headers
        self.body = body
    }

    /// A response whose body is `document` as compact JSON (keys sorted, slashes unescaped).
    ///
    /// Each reply is written once, as a ``JSONValue``; it is serialized without
    /// `JSONEncoder` (a tenth of a warm invocation's instructions), which is left only for a
    /// document that holds a floating-point number or a non-ASCII key (none of ours do).
    package static func json(status: Int, _ document: JSONValue, headers: [String: String] = [:]) -> APIResponse {
        let bytes = document.compactJSON() ?? (try? JSONCoding.encode(document)) ?? Array("{}".utf8)
        return APIResponse(status: status, headers: headers, body: String(decoding: bytes, as: UTF8.self))
    }

    /// An error answer: `{"error": code, "message": message}`.
    package static func error(status: Int, code: String, message: String, headers: [String: String] = [:]) -> APIResponse {
        json(status: status, .object(["error": .string(code), "message": .string(message)]), headers: headers)
    }
}

extension APIResponse {
    /// The Lambda proxy integration answer for `version`, as compact JSON with sorted
    /// keys (deterministic bytes for tests and replay):
    /// `{"body", "headers", "isBase64Encoded": false, "statusCode"}`, and for payload 1.0
    /// also `multiValueHeaders` with each header as a one-element list (API Gateway merges
    /// the two maps; equal pairs appear once).
    ///
    /// - Parameter version: The payload format of the event being answered.
    /// - Returns: The JSON bytes, without a trailing newline.
    package func encoded(for version: PayloadVersion) -> [UInt8] {
        let payload = ProxyResponse(
            statusCode: status, headers: headers,
            multiValueHeaders: version == .v1 ? headers.mapValues { [$0] } : nil,
            body: body, isBase64Encoded: false
        )
        // Without JSONEncoder, unless a header name is not ASCII.
        if let bytes = payload.jsonValue.compactJSON() { return bytes }
        // Strings, an Int and a Bool always encode; the fallback only satisfies `try`.
        return (try? JSONCoding.encode(payload.jsonValue)) ?? Array(Self.fallback.utf8)
    }

    private static let fallback =
        #"{"body":"{\"error\":\"internal\",\"message\":\"the response could not be encoded\"}","headers":{"content-type":"application/json"},"isBase64Encoded":false,"statusCode":500}"#

    private struct ProxyResponse {
        var statusCode: Int
        var headers: [String: String]
        /// Omitted (not `null`) for payload 2.0.
        var multiValueHeaders: [String: [String]]?
        var body: String
        var isBase64Encoded: Bool

        var jsonValue: JSONValue {
            var fields: [String: JSONValue] = [
                "statusCode": .integer(Int64(statusCode)), "headers": .object(headers.mapValues(JSONValue.string)),
                "body": .string(body), "isBase64Encoded": .bool(isBase64Encoded),
            ]
            if let multiValueHeaders {
                fields["multiValueHeaders"] = .object(multiValueHeaders.mapValues { .array($0.map(JSONValue.string)) })
            }
            return .object(fields)
        }
    }
}
