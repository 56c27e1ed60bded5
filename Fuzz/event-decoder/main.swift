// libFuzzer target: raw Lambda event bytes -> IncomingEvent (API Gateway payload 1.0 and
// 2.0, EventBridge scheduled events, constant shard input), then what the runtime does
// next with a decoded event: the refresh shard spec, or a response in the event's format.
import Foundation
@testable import PayPulseHandlers
import PayPulseFuzzSupport
@testable import PayPulseRuntime

LibFuzzer.run { data, count in
    let bytes = LibFuzzer.bytes(data, count)
    decodeEvent(bytes)
    checkStrictBase64(bytes)
    return 0
}

func decodeEvent(_ bytes: [UInt8]) {
    do {
        switch try IncomingEvent.decode(bytes) {
        case .http(let request, let version):
            precondition(request.method == request.method.uppercased(), "the method is upper-cased")
            _ = APIResponse(status: 200, body: request.path).encoded(for: version)
        case .scheduled(let event):
            _ = try? TokenRefreshHandler.shard(from: event.detail)
        }
    } catch {
        // What EventHandlers does: a client error (bad base64, not UTF-8, over 64 KiB) is
        // answered in the event's format, anything else is a rejected event.
        if let (response, version) = error.clientErrorResponse {
            precondition([400, 413].contains(response.status), "a client error is a 400 or a 413")
            _ = response.encoded(for: version)
        }
        _ = error.description
    }
}

/// Differential check of the strict decoder the event body goes through: whatever it
/// accepts, Foundation's decoder reads as the same bytes, and any bytes survive a round trip.
func checkStrictBase64(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    if let strict = StrictBase64.decode(text) {
        precondition(Data(base64Encoded: text).map(Array.init) == strict, "StrictBase64 and Foundation disagree")
    }
    precondition(StrictBase64.decode(Data(bytes).base64EncodedString()) == bytes, "StrictBase64 round trip")
}
