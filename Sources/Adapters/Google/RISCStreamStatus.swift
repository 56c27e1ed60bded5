import PayPulseCoding

/// Whether Google delivers a stream's events: `enabled` or `disabled` (nothing is kept for
/// later while disabled). Read as the word Google sends, so a status the Shared Signals
/// specification adds (`paused`) still prints.
package struct RISCStreamStatus: Sendable, Hashable, CustomStringConvertible {
    /// The word, e.g. `enabled`.
    package let rawValue: String

    /// A status by its word.
    package init(_ rawValue: String) { self.rawValue = rawValue }

    /// Events are delivered.
    package static let enabled = RISCStreamStatus("enabled")
    /// Events are neither delivered nor kept.
    package static let disabled = RISCStreamStatus("disabled")

    package var description: String { rawValue }

    /// Reads `{"status": "enabled"}`; `nil` for anything else.
    init?(answer: [UInt8]) {
        guard let word = (try? JSONValue.decode(answer))?["status"]?.stringValue, !word.isEmpty else { return nil }
        self.init(word)
    }

    /// The `status:update` body, `{"status":"enabled"}`.
    var updateBody: [UInt8] { (try? JSONCoding.encode(["status": rawValue])) ?? [] }
}
