#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseCoding

/// A handler's answer: status, headers and a JSON body. The runtime encodes it for the
/// event shape it answers (API Gateway payload 1.0 or 2.0).
public struct APIResponse: Sendable, Equatable {
    /// The HTTP status.
    public var status: Int
    /// Header fields; `content-type: application/json` is always present.
    public var headers: [String: String]
    /// The JSON body.
    public var body: String

    /// Creates a response with a JSON body.
    public init(status: Int, headers: [String: String] = [:], body: String) {
        self.status = status
        var headers = headers
        headers["content-type"] = "application/json"
        self.headers = headers
        self.body = body
    }

    /// A response whose body is `value` encoded as JSON (keys sorted, slashes unescaped).
    public static func json(status: Int, _ value: some Encodable, headers: [String: String] = [:]) -> APIResponse {
        // The same bytes without JSONEncoder for the replies that can give their value.
        if let reply = value as? any JSONReply, let bytes = reply.jsonValue.compactJSON() {
            return APIResponse(status: status, headers: headers, body: String(decoding: bytes, as: UTF8.self))
        }
        let body = (try? JSONCoding.string(value)) ?? "{}"
        return APIResponse(status: status, headers: headers, body: body)
    }

    /// An error answer: `{"error": code, "message": message}`.
    public static func error(status: Int, code: String, message: String, headers: [String: String] = [:]) -> APIResponse {
        json(status: status, ErrorBody(error: code, message: message), headers: headers)
    }

    private struct ErrorBody: JSONReply {
        var error: String
        var message: String

        var jsonValue: JSONValue { .object(["error": .string(error), "message": .string(message)]) }
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
    public func encoded(for version: PayloadVersion) -> [UInt8] {
        let payload = ProxyResponse(
            statusCode: status, headers: headers,
            multiValueHeaders: version == .v1 ? headers.mapValues { [$0] } : nil,
            body: body, isBase64Encoded: false
        )
        // The same bytes without JSONEncoder, unless a header name is not ASCII.
        if let bytes = payload.jsonValue.compactJSON() { return bytes }
        // Strings, an Int and a Bool always encode; the fallback only satisfies `try`.
        return (try? JSONCoding.encode(payload)) ?? Array(Self.fallback.utf8)
    }

    private static let fallback =
        #"{"body":"{\"error\":\"internal\",\"message\":\"the response could not be encoded\"}","headers":{"content-type":"application/json"},"isBase64Encoded":false,"statusCode":500}"#

    private struct ProxyResponse: Encodable {
        var statusCode: Int
        var headers: [String: String]
        /// Omitted (not `null`) for payload 2.0: synthesized encoding skips `nil`.
        var multiValueHeaders: [String: [String]]?
        var body: String
        var isBase64Encoded: Bool

        /// Member for member what synthesized `Encodable` writes.
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

/// A reply body that also gives its JSON as a value, member for member as its `Encodable`
/// conformance writes it, so ``APIResponse/json(status:_:headers:)`` can write the same
/// bytes without `JSONEncoder` (a tenth of a warm invocation's instructions).
protocol JSONReply: Encodable {
    /// The body as the `Encodable` conformance encodes it.
    var jsonValue: JSONValue { get }
}
