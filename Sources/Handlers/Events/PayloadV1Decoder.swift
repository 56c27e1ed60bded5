import PayPulseCoding
import PayPulseHandlers

/// REST API payload format 1.0 (also HTTP API payload 1.0) into an ``APIRequest``.
enum PayloadV1Decoder {
    static func decode(_ event: [String: JSONValue]) throws(EventDecodingError) -> APIRequest {
        guard let method = event["httpMethod"]?.stringValue else {
            throw .notAnAPIGatewayEvent("a payload 1.0 event needs a string httpMethod")
        }
        // `path` is the resource path without the stage (`requestContext.path` has it),
        // so it is used as is; see StagePrefix for why it is not stripped.
        guard let path = event["path"]?.stringValue else {
            throw .notAnAPIGatewayEvent("a payload 1.0 event needs a string path")
        }
        return APIRequest(
            method: method,
            path: path,
            headers: APIHeaders(headerFields(event)),
            query: queryParameters(event),
            body: try EventBody.bytes(of: event, version: .v1),
            authorizerClaims: AuthorizerClaims.v1(event["requestContext"]?["authorizer"])
        )
    }

    /// `multiValueHeaders` joined with commas (what payload 2.0 and HTTP do for repeated
    /// fields), then any name only `headers` has. Either may be `null`.
    private static func headerFields(_ event: [String: JSONValue]) -> [String: String] {
        // Lowercased here so that `Accept` in one map and `accept` in the other do not
        // leave the winner to dictionary order.
        var fields: [String: String] = [:]
        for (name, value) in event["headers"]?.objectValue?.stringMembers ?? [:] {
            fields[name.lowercased()] = value
        }
        for (name, values) in event["multiValueHeaders"]?.objectValue ?? [:] {
            guard let list = values.arrayValue?.compactMap(\.stringValue), !list.isEmpty else { continue }
            fields[name.lowercased()] = list.joined(separator: ",")
        }
        return fields
    }

    /// The last value of each `multiValueQueryStringParameters` list, then any key only
    /// `queryStringParameters` has (it already holds the last value).
    private static func queryParameters(_ event: [String: JSONValue]) -> [String: String] {
        var query = event["queryStringParameters"]?.objectValue?.stringMembers ?? [:]
        for (key, values) in event["multiValueQueryStringParameters"]?.objectValue ?? [:] {
            if let last = values.arrayValue?.compactMap(\.stringValue).last { query[key] = last }
        }
        return query
    }
}
