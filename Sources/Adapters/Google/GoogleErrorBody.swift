#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Google's OAuth error JSON: `{"error": "invalid_grant", "error_description": "…",
/// "error_subtype": "invalid_rapt"}`. Anything else (HTML from a proxy, an empty body,
/// an `error` object) reads as `nil`.
struct GoogleErrorBody: Decodable {
    var error: String
    var errorDescription: String?
    var errorSubtype: String?

    private enum CodingKeys: String, CodingKey {
        case error
        case errorDescription = "error_description"
        case errorSubtype = "error_subtype"
    }

    /// The longest description kept, so an odd body cannot flood errors and logs.
    private static let detailLimit = 300

    init?(body: [UInt8]) {
        guard let decoded = try? JSONDecoder().decode(GoogleErrorBody.self, from: Data(body)),
              Self.isCode(decoded.error)
        else { return nil }
        self = decoded
    }

    /// The description with the subtype noted, e.g.
    /// `reauth related error (invalid_rapt) [error_subtype: invalid_rapt]`.
    var detail: String {
        var parts: [String] = []
        if let errorDescription, !errorDescription.isEmpty { parts.append(String(errorDescription.prefix(Self.detailLimit))) }
        if let errorSubtype, !errorSubtype.isEmpty { parts.append("[error_subtype: \(errorSubtype.prefix(64))]") }
        return parts.joined(separator: " ")
    }

    /// Google's codes are short snake_case words; anything else is not used as our `code`.
    private static func isCode(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 64
            && text.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
            }
    }
}
