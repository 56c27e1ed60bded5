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
