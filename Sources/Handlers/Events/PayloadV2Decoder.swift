import PayPulseCoding
import PayPulseHandlers

/// HTTP API payload format 2.0 into an ``APIRequest``.
enum PayloadV2Decoder {
    static func decode(_ event: [String: JSONValue]) throws(EventDecodingError) -> APIRequest {
        let context = event["requestContext"]
        guard let method = context?["http"]?["method"]?.stringValue else {
            throw .notAnAPIGatewayEvent("a payload 2.0 event needs requestContext.http.method")
        }
        guard let path = context?["http"]?["path"]?.stringValue ?? event["rawPath"]?.stringValue else {
            throw .notAnAPIGatewayEvent("a payload 2.0 event needs rawPath or requestContext.http.path")
        }
        var headers = APIHeaders(event["headers"]?.objectValue?.stringMembers ?? [:])
        // Payload 2.0 moves the Cookie header into `cookies`; put it back for handlers.
        if headers["cookie"] == nil, let cookies = event["cookies"]?.arrayValue?.compactMap(\.stringValue), !cookies.isEmpty {
            headers["cookie"] = cookies.joined(separator: "; ")
        }
        let query = QueryString.lastValues(
            parameters: event["queryStringParameters"]?.objectValue?.stringMembers ?? [:],
            raw: event["rawQueryString"]?.stringValue
        )
        return APIRequest(
            method: method,
            path: StagePrefix.strip(path, stage: context?["stage"]?.stringValue),
            headers: headers,
            query: query,
            body: try EventBody.bytes(of: event, version: .v2),
            authorizerClaims: AuthorizerClaims.v2(context?["authorizer"])
        )
    }
}
