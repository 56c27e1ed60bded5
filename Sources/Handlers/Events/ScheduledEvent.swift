#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseCoding

/// An EventBridge event, such as the one a schedule rule sends (`detail-type`
/// `"Scheduled Event"`, `source` `"aws.events"`). The `detail` is kept as JSON text so
/// the handler that owns its shape (e.g. `{"shard": 0, "shards": 4}`) decodes it.
package struct ScheduledEvent: Sendable, Equatable {
    /// The event id, if present.
    package var id: String?
    /// The `detail-type`, e.g. `Scheduled Event`.
    package var detailType: String
    /// The `source`, e.g. `aws.events`.
    package var source: String
    /// The `time` as sent (RFC 3339), if present.
    package var time: String?
    /// The `resources`, e.g. the rule ARN.
    package var resources: [String]
    /// The `detail` as compact JSON with sorted keys; `{}` for the plain schedule.
    package var detail: [UInt8]

    /// Creates an event.
    package init(
        id: String? = nil, detailType: String = "Scheduled Event", source: String = "aws.events",
        time: String? = nil, resources: [String] = [], detail: [UInt8] = Array("{}".utf8)
    ) {
        self.id = id
        self.detailType = detailType
        self.source = source
        self.time = time
        self.resources = resources
        self.detail = detail
    }

    /// Decodes ``detail`` as `type`.
    ///
    /// - Parameter type: The shape the handler expects.
    /// - Throws: The `DecodingError` of `JSONDecoder` when the detail does not fit.
    package func decodeDetail<T: Decodable>(as type: T.Type) throws -> T {
        try JSONDecoder().decode(type, from: Data(detail))
    }

    init(_ event: [String: JSONValue]) throws(EventDecodingError) {
        guard let detailType = event["detail-type"]?.stringValue, let source = event["source"]?.stringValue else {
            throw .notAnAPIGatewayEvent("an EventBridge event needs string \"detail-type\" and \"source\"")
        }
        guard let detail = event["detail"] else {
            throw .notAnAPIGatewayEvent("an EventBridge event needs a \"detail\"")
        }
        self.init(
            id: event["id"]?.stringValue, detailType: detailType, source: source, time: event["time"]?.stringValue,
            resources: event["resources"]?.arrayValue?.compactMap(\.stringValue) ?? [], detail: detail.jsonBytes
        )
    }
}
