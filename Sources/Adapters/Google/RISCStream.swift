import PayPulseCoding

/// A RISC stream's configuration as `GET {base}/stream` answers it (the Shared Signals
/// stream configuration): where Google delivers and which events. Members Google leaves out
/// read as empty; members this type does not name are ignored.
package struct RISCStream: Sendable, Equatable {
    /// The receiver, `delivery.url`.
    package var deliveryURL: String?
    /// `delivery.delivery_method`: push is the only one Google offers.
    package var deliveryMethod: String?
    /// The event type URIs the stream asked for.
    package var eventsRequested: [String]
    /// The event type URIs Google delivers: those asked for that it supports.
    package var eventsDelivered: [String]
    /// The client IDs the events are addressed to (`aud`).
    package var audience: [String]

    /// Creates a configuration.
    package init(deliveryURL: String?, deliveryMethod: String?, eventsRequested: [String], eventsDelivered: [String] = [], audience: [String] = []) {
        self.deliveryURL = deliveryURL
        self.deliveryMethod = deliveryMethod
        self.eventsRequested = eventsRequested
        self.eventsDelivered = eventsDelivered
        self.audience = audience
    }

    /// Reads an answer; `nil` when it is not a JSON object.
    init?(answer: [UInt8]) {
        guard case .object(let fields)? = try? JSONValue.decode(answer) else { return nil }
        let delivery = fields["delivery"]?.objectValue ?? [:]
        let strings = { (value: JSONValue?) in value?.arrayValue?.compactMap(\.stringValue) ?? [] }
        self.init(
            deliveryURL: delivery["url"]?.stringValue, deliveryMethod: delivery["delivery_method"]?.stringValue,
            eventsRequested: strings(fields["events_requested"]), eventsDelivered: strings(fields["events_delivered"]),
            // `aud`: one string or a list, as in a JWT.
            audience: fields["aud"]?.stringValue.map { [$0] } ?? strings(fields["aud"])
        )
    }

    /// The `stream:update` body: push delivery to `receiver`, asking for `events`.
    static func updateBody(receiver: String, events: [String]) -> [UInt8] {
        let body = UpdateBody(delivery: .init(deliveryMethod: RISCManagementClient.pushDeliveryMethod, url: receiver), eventsRequested: events)
        // Strings alone: encoding cannot fail.
        return (try? JSONCoding.encode(body)) ?? []
    }

    private struct UpdateBody: Encodable {
        struct Delivery: Encodable {
            var deliveryMethod: String
            var url: String
            enum CodingKeys: String, CodingKey { case deliveryMethod = "delivery_method", url }
        }

        var delivery: Delivery
        var eventsRequested: [String]
        enum CodingKeys: String, CodingKey { case delivery, eventsRequested = "events_requested" }
    }
}
