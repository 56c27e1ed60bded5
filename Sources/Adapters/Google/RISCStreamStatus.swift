import PayPulseCoding

/// Whether Google delivers a stream's events: `enabled` or `disabled` (nothing is kept for
/// later while disabled). Read as the word Google sends, so a status the Shared Signals
/// specification adds (`paused`) still prints.
public struct RISCStreamStatus: Sendable, Hashable, CustomStringConvertible {
    /// The word, e.g. `enabled`.
    public let rawValue: String

    /// A status by its word.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// Events are delivered.
    public static let enabled = RISCStreamStatus("enabled")
    /// Events are neither delivered nor kept.
    public static let disabled = RISCStreamStatus("disabled")

    public var description: String { rawValue }

    /// Reads `{"status": "enabled"}`; `nil` for anything else.
    init?(answer: [UInt8]) {
        guard let word = (try? JSONValue.decode(answer))?["status"]?.stringValue, !word.isEmpty else { return nil }
        self.init(word)
    }

    /// The `status:update` body, `{"status":"enabled"}`.
    var updateBody: [UInt8] { (try? JSONCoding.encode(["status": rawValue])) ?? [] }
}
