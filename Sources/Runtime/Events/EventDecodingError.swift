/// Why an event could not be turned into an ``IncomingEvent``.
public enum EventDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bytes are not a JSON document.
    case notJSON
    /// The bytes are JSON but neither an API Gateway proxy event (payload 1.0 or 2.0) nor
    /// an EventBridge scheduled event; the text says what was missing.
    case notAnAPIGatewayEvent(String)
    /// A well-formed API Gateway event whose body is marked `isBase64Encoded` but is not
    /// base64. This is the caller's fault, not the event source's: answer 400
    /// `invalid_request` in the payload format carried here.
    case invalidBase64(PayloadVersion)

    /// One line for stderr or a log.
    public var description: String {
        switch self {
        case .notJSON:
            "the event is not a JSON document"
        case .notAnAPIGatewayEvent(let reason):
            "the event is not an API Gateway proxy event (payload 1.0 or 2.0) or an EventBridge scheduled event: \(reason)"
        case .invalidBase64:
            "the request body is not valid base64"
        }
    }
}
