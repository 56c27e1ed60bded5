import PayPulseCoding
import PayPulseHandlers

/// One invocation's event, recognised by its shape.
public enum IncomingEvent: Sendable, Equatable {
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
    public static func decode(_ bytes: [UInt8]) throws(EventDecodingError) -> IncomingEvent {
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
