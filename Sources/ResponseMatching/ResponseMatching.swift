import Foundation

/// Compares a function's response with its expected file from `events/`. The body, a JSON
/// string inside the response, is compared as JSON; an empty body (a 202 with none) is
/// the empty string. Volatile values have one explicit
/// rule: an expected string `"<rfc3339>"` matches any RFC 3339 timestamp, `"<any>"`
/// anything; every other value must be equal.
///
/// The one matcher for every place that checks an answer: the replay tests, and
/// `paypulse match-response` for the bundle proofs (chroot, Lambda emulator).
package enum ResponseMatching {
    /// Why `actual` does not match `expected`, or `nil` when it does.
    /// - Parameters:
    ///   - expected: the expected file's bytes (JSON, with the placeholders above).
    ///   - actual: the response as printed (one JSON object).
    package static func mismatch(expected: Data, actual: String) -> String? {
        guard let expectedValue = try? JSONSerialization.jsonObject(with: expected) else { return "unreadable expected file" }
        guard var actualValue = try? JSONSerialization.jsonObject(with: Data(actual.utf8)) as? [String: Any] else {
            return "stdout is not one JSON object: \(actual.prefix(300))"
        }
        if let body = actualValue["body"] as? String, !body.isEmpty {
            guard let parsed = try? JSONSerialization.jsonObject(with: Data(body.utf8)) else { return "the body is not JSON: \(body.prefix(300))" }
            actualValue["body"] = parsed
        }
        let normalized = substitutingVolatile(expected: expectedValue, actual: actualValue)
        let left = canonical(expectedValue), right = canonical(normalized)
        return left == right ? nil : "expected \(left)\n   got \(right)"
    }

    private static func substitutingVolatile(expected: Any, actual: Any) -> Any {
        switch (expected, actual) {
        case (let marker as String, let value as String) where marker == "<rfc3339>":
            return (try? Date(value, strategy: .iso8601)) != nil ? marker : value
        case (let marker as String, _) where marker == "<any>":
            return marker
        case (let expected as [String: Any], let actual as [String: Any]):
            return actual.reduce(into: [String: Any]()) { result, entry in
                result[entry.key] = expected[entry.key].map { substitutingVolatile(expected: $0, actual: entry.value) } ?? entry.value
            }
        case (let expected as [Any], let actual as [Any]) where expected.count == actual.count:
            return zip(expected, actual).map { substitutingVolatile(expected: $0, actual: $1) }
        default:
            return actual
        }
    }

    private static func canonical(_ value: Any) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes]) else { return "\(value)" }
        return String(decoding: data, as: UTF8.self)
    }
}
