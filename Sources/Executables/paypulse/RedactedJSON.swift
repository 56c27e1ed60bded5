#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseCoding
import PayPulseHandlers

extension JSONValue {
    /// The same document with every value under a `*token` key replaced by a marker.
    func redactingTokens() -> JSONValue {
        switch self {
        case .object(let fields):
            var redacted: [String: JSONValue] = [:]
            for (key, value) in fields {
                if key.lowercased().hasSuffix("token"), case .string(let secret) = value {
                    redacted[key] = .string("<redacted: \(secret.utf8.count) bytes>")
                } else {
                    redacted[key] = value.redactingTokens()
                }
            }
            return .object(redacted)
        case .array(let items):
            return .array(items.map { $0.redactingTokens() })
        default:
            return self
        }
    }

    /// Pretty JSON text with sorted keys.
    var prettyText: String {
        (try? String(decoding: JSONCoding.encoder(pretty: true).encode(self), as: UTF8.self)) ?? "null"
    }
}
