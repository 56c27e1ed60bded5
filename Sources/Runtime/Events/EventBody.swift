import PayPulseHandlers

/// The `body` and `isBase64Encoded` members of an API Gateway event.
enum EventBody {
    /// The body bytes: base64-decoded when the event says so (SAM and binary media types
    /// do), UTF-8 otherwise; empty for a missing or `null` body.
    ///
    /// - Throws: ``EventDecodingError/invalidBase64(_:)`` carrying `version`.
    static func bytes(of event: [String: JSONValue], version: PayloadVersion) throws(EventDecodingError) -> [UInt8] {
        guard let text = event["body"]?.stringValue else { return [] }
        guard event["isBase64Encoded"]?.boolValue == true else { return Array(text.utf8) }
        guard let bytes = StrictBase64.decode(text) else { throw .invalidBase64(version) }
        return bytes
    }
}
