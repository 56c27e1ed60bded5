import PayPulseCoding
import PayPulseHandlers

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
