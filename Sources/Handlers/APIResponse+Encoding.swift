#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseCoding
import PayPulseHandlers

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
