import Logging

/// One log event as a JSON object on one line, in Lambda's JSON log shape.
///
/// `timestamp` (RFC 3339, ms), `level` (Lambda's names, see ``LambdaLogLevel``),
/// `message`, `requestId` when the metadata has one, then the other metadata sorted by
/// key. A metadata key that would repeat one of these fields is written as
/// `metadata.<key>`, so every line stays a valid object with unique keys.
enum JSONLogLine {
    static let reservedKeys: Set<String> = ["timestamp", "level", "message"]

    static func render(timestamp: LogTimestamp, level: Logger.Level, message: String, metadata: Logger.Metadata) -> String {
        var fields = [
            "\"timestamp\":\(JSONString.quoted(timestamp.rfc3339))",
            "\"level\":\(JSONString.quoted(LambdaLogLevel.name(of: level)))",
            "\"message\":\(JSONString.quoted(message))",
        ]
        if let requestID = metadata["requestId"] {
            fields.append("\"requestId\":\(value(requestID))")
        }
        for key in metadata.keys.sorted() where key != "requestId" {
            let name = reservedKeys.contains(key) ? "metadata.\(key)" : key
            fields.append("\(JSONString.quoted(name)):\(value(metadata[key]!))")
        }
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// Strings (and string-convertible values) as strings; arrays and dictionaries as
    /// JSON arrays and objects.
    private static func value(_ value: Logger.MetadataValue) -> String {
        switch value {
        case .string(let text): JSONString.quoted(text)
        case .stringConvertible(let convertible): JSONString.quoted(convertible.description)
        case .array(let items): "[" + items.map { Self.value($0) }.joined(separator: ",") + "]"
        case .dictionary(let entries):
            "{" + entries.keys.sorted().map { "\(JSONString.quoted($0)):\(Self.value(entries[$0]!))" }.joined(separator: ",") + "}"
        }
    }
}
