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
    ///   base64 but is not (answer that one with a 400, not a crash or an exit).
    public static func decode(_ bytes: [UInt8]) throws(EventDecodingError) -> IncomingEvent {
        let json = try JSONValue.parse(bytes)
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
}
