
/// Why an event could not be turned into an ``IncomingEvent``.
package enum EventDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bytes are not a JSON document.
    case notJSON
    /// The bytes are JSON but neither an API Gateway proxy event (payload 1.0 or 2.0) nor
    /// an EventBridge scheduled event; the text says what was missing.
    case notAnAPIGatewayEvent(String)
    /// A well-formed API Gateway event whose body is marked `isBase64Encoded` but is not
    /// base64. This is the caller's fault, not the event source's: answer 400
    /// `invalid_request` in the payload format carried here.
    case invalidBase64(PayloadVersion)
    /// An API Gateway event whose body is larger than ``APIRequest/maximumBodyBytes``,
    /// found from the text's length before decoding: answer 413 `payload_too_large`.
    case bodyTooLarge(PayloadVersion)
    /// An API Gateway event with bytes that are not UTF-8 (in a header, the query or a
    /// text body): answer 400 `invalid_request` rather than dropping the event.
    case invalidUTF8(PayloadVersion)

    /// One line for stderr or a log.
    package var description: String {
        switch self {
        case .notJSON:
            "the event is not a JSON document"
        case .notAnAPIGatewayEvent(let reason):
            "the event is not an API Gateway proxy event (payload 1.0 or 2.0) or an EventBridge scheduled event: \(reason)"
        case .invalidBase64:
            "the request body is not valid base64"
        case .bodyTooLarge:
            "the request body is larger than \(APIRequest.maximumBodyBytes / 1024) KiB"
        case .invalidUTF8:
            "the request is not valid UTF-8"
        }
    }

    /// For an error in the client's request inside a well-formed HTTP event: the error
    /// response and the payload format to encode it in. `nil` when the event itself is bad.
    package var clientErrorResponse: (response: APIResponse, version: PayloadVersion)? {
        switch self {
        case .notJSON, .notAnAPIGatewayEvent:
            nil
        case .invalidBase64(let version):
            (APIError.invalidRequest(description).response, version)
        case .bodyTooLarge(let version):
            (APIError.payloadTooLarge(limit: APIRequest.maximumBodyBytes).response, version)
        case .invalidUTF8(let version):
            (APIError.invalidRequest("The request is not valid UTF-8.").response, version)
        }
    }
}
