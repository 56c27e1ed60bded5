#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseCoding

/// One invocation's event, recognised by its shape.
package enum IncomingEvent: Sendable, Equatable {
    /// An API Gateway proxy event, already turned into the handler's request, with the
    /// payload format the response must be encoded in.
    case http(APIRequest, PayloadVersion)
    /// An EventBridge (CloudWatch Events) scheduled event.
    case scheduled(ScheduledEvent)

    /// Recognises and decodes one event.
    ///
    /// Detection: `version: "2.0"` is HTTP API payload 2.0; an `httpMethod` member is
    /// payload 1.0 (REST API, or HTTP API payload 1.0); `detail-type` + `source` +
    /// `detail` is an EventBridge event.
    ///
    /// - Parameter bytes: The raw event JSON.
    /// - Returns: The decoded event.
    /// - Throws: ``EventDecodingError/notJSON`` for bytes that are not JSON,
    ///   ``EventDecodingError/notAnAPIGatewayEvent(_:)`` for JSON of another shape, and
    ///   ``EventDecodingError/invalidBase64(_:)`` for an HTTP event whose body is marked
    ///   base64 but is not, ``EventDecodingError/bodyTooLarge(_:)`` for a body over
    ///   64 KiB, and ``EventDecodingError/invalidUTF8(_:)`` for an HTTP event with bytes
    ///   that are not UTF-8 (answer those with a 400 or 413, not a crash or an exit).
    package static func decode(_ bytes: [UInt8]) throws(EventDecodingError) -> IncomingEvent {
        let json: JSONValue
        do {
            json = try JSONValue.parse(bytes)
        } catch {
            throw invalidUTF8Request(in: bytes) ?? error
        }
        guard let event = json.objectValue else {
            throw .notAnAPIGatewayEvent("the JSON document is not an object")
        }
        if event["version"]?.stringValue == PayloadVersion.v2.rawValue {
            return .http(try PayloadV2Decoder.decode(event), .v2)
        }
        if event["httpMethod"] != nil {
            return .http(try PayloadV1Decoder.decode(event), .v1)
        }
        if event["detail-type"] != nil {
            return .scheduled(try ScheduledEvent(event))
        }
        // A schedule target with a constant `Input` delivers that JSON alone, not wrapped in
        // an EventBridge envelope: the refresh shard spec `{"shard": i, "shards": n}`.
        if event["shards"] != nil {
            return .scheduled(ScheduledEvent(detailType: "Scheduled Input", source: "aws.events.input", detail: json.jsonBytes))
        }
        throw .notAnAPIGatewayEvent("it has no \"version\": \"2.0\", no \"httpMethod\" and no \"detail-type\"")
    }

    /// An event that JSON refused because of bytes that are not UTF-8 (a header value, say)
    /// is still a request that deserves an answer: with those bytes replaced by U+FFFD,
    /// if it reads as an API Gateway event, the error names its payload format. Only this
    /// failure path pays for the check.
    private static func invalidUTF8Request(in bytes: [UInt8]) -> EventDecodingError? {
        guard String(validating: bytes, as: UTF8.self) == nil else { return nil }
        let repaired = Array(String(decoding: bytes, as: UTF8.self).utf8)
        guard let event = (try? JSONValue.parse(repaired))?.objectValue else { return nil }
        if event["version"]?.stringValue == PayloadVersion.v2.rawValue, event["requestContext"]?["http"] != nil {
            return .invalidUTF8(.v2)
        }
        if event["httpMethod"]?.stringValue != nil { return .invalidUTF8(.v1) }
        return nil
    }
}

/// The API Gateway Lambda proxy payload format an HTTP event arrived in. The answer
/// must use the same format.
package enum PayloadVersion: String, Sendable, Equatable, Hashable, CaseIterable {
    /// REST API (and HTTP API payload 1.0): `httpMethod`, `path`, `multiValueHeaders`.
    case v1 = "1.0"
    /// HTTP API payload 2.0: `version: "2.0"`, `rawPath`, `requestContext.http`.
    case v2 = "2.0"
}

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

/// Removes the stage from a payload 2.0 path.
///
/// An HTTP API invoked on its execute-api URL with a named stage (`prod`) puts the stage
/// in `rawPath` (`/prod/v1/user/me`); the `$default` stage adds nothing. Handlers route
/// on stage-less paths, so a leading `/{stage}` segment is removed once. Only whole
/// segments match: stage `v` leaves `/v1/user/me` alone. Payload 1.0 is not passed
/// through here: its top-level `path` never holds the stage (`requestContext.path` does),
/// and stripping it anyway would break a stage named like a route segment (`v1`).
enum StagePrefix {
    static func strip(_ path: String, stage: String?) -> String {
        guard let stage, !stage.isEmpty, stage != "$default" else { return path }
        let prefix = "/" + stage
        if path == prefix { return "/" }
        if path.hasPrefix(prefix + "/") { return String(path.dropFirst(prefix.count)) }
        return path
    }
}

/// Query parameters with the last value winning for repeated keys, as ``APIRequest``
/// promises.
enum QueryString {
    /// Payload 2.0: `queryStringParameters` joins repeated keys with commas
    /// (`a=1&a=2` gives `"1,2"`), which cannot be told apart from a value with a comma.
    /// `rawQueryString` keeps them apart, so a key repeated there takes its last raw
    /// value (percent-decoded; `+` is left as is, as API Gateway does); other keys keep
    /// the value API Gateway decoded.
    static func lastValues(parameters: [String: String], raw: String?) -> [String: String] {
        var result = parameters
        guard let raw, !raw.isEmpty else { return result }
        var counts: [String: Int] = [:]
        var last: [String: String] = [:]
        for pair in raw.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = percentDecoded(parts[0])
            counts[key, default: 0] += 1
            last[key] = parts.count > 1 ? percentDecoded(parts[1]) : ""
        }
        for (key, value) in last where counts[key, default: 0] > 1 || result[key] == nil {
            result[key] = value
        }
        return result
    }

    /// `%XX` sequences decoded; a malformed escape is kept literally, `+` too.
    static func percentDecoded(_ text: Substring) -> String {
        String(decoding: PercentDecoding.decode(text.utf8, plusAsSpace: false, strict: false) ?? [], as: UTF8.self)
    }
}

/// What an API Gateway authorizer already verified, as the string map ``APIRequest``
/// carries.
///
/// Values are stringified by ``JSONValue/flattened``: strings as they are, numbers and
/// booleans as JSON writes them (`1700000000`, `true`), arrays and objects as compact JSON
/// text (`["a","b"]`), `null` dropped. Real HTTP APIs already send every JWT claim as a
/// string (arrays as `[a b]`), which passes through untouched; JSON text for arrays keeps
/// hand-written and emulated events lossless and unambiguous.
enum AuthorizerClaims {
    /// Payload 2.0: `authorizer.jwt.claims` (JWT authorizer), else `authorizer.lambda`
    /// (Lambda authorizer context); IAM authorization carries no claims.
    static func v2(_ authorizer: JSONValue?) -> [String: String]? {
        if let claims = authorizer?["jwt"]?["claims"]?.objectValue { return flattened(claims) }
        if let context = authorizer?["lambda"]?.objectValue { return flattened(context) }
        return nil
    }

    /// Payload 1.0: `authorizer.claims` (Cognito user pool), else `authorizer.jwt.claims`
    /// (HTTP API JWT authorizer with payload 1.0), else the authorizer object itself
    /// (Lambda authorizer: `principalId` plus its context), without the
    /// `integrationLatency` API Gateway adds.
    static func v1(_ authorizer: JSONValue?) -> [String: String]? {
        if let claims = authorizer?["claims"]?.objectValue { return flattened(claims) }
        if let claims = authorizer?["jwt"]?["claims"]?.objectValue { return flattened(claims) }
        guard var context = authorizer?.objectValue else { return nil }
        context["integrationLatency"] = nil
        return flattened(context)
    }

    /// `nil` when nothing is left, so "no authorizer" and "empty authorizer" look alike.
    private static func flattened(_ fields: [String: JSONValue]) -> [String: String]? {
        var result: [String: String] = [:]
        for (key, value) in fields {
            if let text = value.flattened { result[key] = text }
        }
        return result.isEmpty ? nil : result
    }
}

/// The `body` and `isBase64Encoded` members of an API Gateway event.
enum EventBody {
    /// The body bytes: base64-decoded when the event says so (SAM and binary media types
    /// do), UTF-8 otherwise; empty for a missing or `null` body.
    ///
    /// The size is checked on the text before anything is decoded or copied: base64 text
    /// of length L decodes to at least 3L/4 - 2 bytes, so a body over
    /// ``APIRequest/maximumBodyBytes`` is refused without decoding it.
    ///
    /// - Throws: ``EventDecodingError/bodyTooLarge(_:)`` or
    ///   ``EventDecodingError/invalidBase64(_:)``, carrying `version`.
    static func bytes(of event: [String: JSONValue], version: PayloadVersion) throws(EventDecodingError) -> [UInt8] {
        guard let text = event["body"]?.stringValue else { return [] }
        let isBase64 = event["isBase64Encoded"]?.boolValue == true
        let length = text.utf8.count
        let smallestDecodedLength = isBase64 ? length / 4 * 3 - 2 : length
        guard smallestDecodedLength <= APIRequest.maximumBodyBytes else { throw .bodyTooLarge(version) }
        guard isBase64 else { return Array(text.utf8) }
        guard let bytes = StrictBase64.decode(text) else { throw .invalidBase64(version) }
        // Padding can only shorten it; this keeps the bound exact, not approximate.
        guard bytes.count <= APIRequest.maximumBodyBytes else { throw .bodyTooLarge(version) }
        return bytes
    }
}

/// RFC 4648 base64 (standard alphabet, padded), decoded strictly.
///
/// Foundation's `Data(base64Encoded:)` accepts `=` inside the text and extra padding
/// (`e3=0` decodes to two bytes of garbage), which would hand a handler bytes the client
/// never sent. API Gateway always sends padded standard base64, so anything else is
/// refused: a length that is not a multiple of 4, a character outside the alphabet, or
/// padding anywhere but the last one or two places.
enum StrictBase64 {
    /// The decoded bytes, or `nil` if `text` is not strict base64.
    static func decode(_ text: String) -> [UInt8]? {
        let input = Array(text.utf8)
        guard input.count % 4 == 0 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(input.count / 4 * 3)
        var index = 0
        while index < input.count {
            let isLast = index + 4 == input.count
            let padding = isLast ? input[index...].reversed().prefix { $0 == UInt8(ascii: "=") }.count : 0
            guard padding <= 2 else { return nil }
            var group: UInt32 = 0
            for offset in 0..<(4 - padding) {
                guard let value = sextet(input[index + offset]) else { return nil }
                group = group << 6 | UInt32(value)
            }
            group <<= 6 * UInt32(padding)
            output.append(UInt8(truncatingIfNeeded: group >> 16))
            if padding < 2 { output.append(UInt8(truncatingIfNeeded: group >> 8)) }
            if padding < 1 { output.append(UInt8(truncatingIfNeeded: group)) }
            index += 4
        }
        return output
    }

    private static func sextet(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}

extension JSONValue {
    /// Parses `bytes` as `JSONDecoder` would (``JSONValue/decode(_:)``); anything it
    /// refuses is `notJSON`.
    static func parse(_ bytes: [UInt8]) throws(EventDecodingError) -> JSONValue {
        do {
            return try JSONValue.decode(bytes)
        } catch {
            throw .notJSON
        }
    }
}

extension [String: JSONValue] {
    /// The string-valued members; other values (`null`, numbers, objects) are skipped.
    var stringMembers: [String: String] {
        var result: [String: String] = [:]
        for (key, value) in self {
            if let text = value.stringValue { result[key] = text }
        }
        return result
    }
}
