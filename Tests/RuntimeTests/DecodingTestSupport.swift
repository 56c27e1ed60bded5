import PayPulseCoding
import Testing

@testable import PayPulseHandlers
@testable import PayPulseRuntime

/// Decodes `object` and requires an HTTP event.
func decodeHTTP(_ object: [String: JSONValue]) throws -> (APIRequest, PayloadVersion) {
    guard case .http(let request, let version) = try IncomingEvent.decode(object.bytes) else {
        throw DecodingTestFailure.notHTTP
    }
    return (request, version)
}

enum DecodingTestFailure: Error {
    case notHTTP
}

/// The error `IncomingEvent.decode` throws for `bytes`, or `nil`.
func decodingError(_ bytes: [UInt8]) -> EventDecodingError? {
    do {
        _ = try IncomingEvent.decode(bytes)
        return nil
    } catch {
        return error
    }
}
