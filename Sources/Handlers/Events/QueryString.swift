import PayPulseCoding
import PayPulseHandlers

/// Query parameters with the last value winning for repeated keys, as ``APIRequest``
/// promises.
enum QueryString {
    /// Payload 2.0: `queryStringParameters` joins repeated keys with commas
    /// (`a=1&a=2` gives `"1,2"`), which cannot be told apart from a value with a comma.
    /// `rawQueryString` keeps them apart, so a key repeated there takes its last raw
    /// value (percent-decoded; `+` is left as is, as API Gateway does); other keys keep
    /// the value API Gateway decoded.
    static func lastValues(parameters: [String: String], raw: String?) -> [String: String] {
        var result = parameters
        guard let raw, !raw.isEmpty else { return result }
        var counts: [String: Int] = [:]
        var last: [String: String] = [:]
        for pair in raw.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = percentDecoded(parts[0])
            counts[key, default: 0] += 1
            last[key] = parts.count > 1 ? percentDecoded(parts[1]) : ""
        }
        for (key, value) in last where counts[key, default: 0] > 1 || result[key] == nil {
            result[key] = value
        }
        return result
    }

    /// `%XX` sequences decoded; a malformed escape is kept literally, `+` too.
    static func percentDecoded(_ text: Substring) -> String {
        String(decoding: PercentDecoding.decode(text.utf8, plusAsSpace: false, strict: false) ?? [], as: UTF8.self)
    }
}
