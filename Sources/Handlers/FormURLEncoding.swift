import PayPulseCoding

/// `application/x-www-form-urlencoded` bodies: `a=1&b=two+words&b=again`.
public enum FormURLEncoding {
    /// The fields in order; repeated keys appear repeatedly.
    /// - Returns: `nil` when a percent escape is malformed or the text is not UTF-8.
    public static func fields(of body: [UInt8]) -> [(key: String, value: String)]? {
        var fields: [(key: String, value: String)] = []
        for pair in body.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard let key = decode(parts[0]) else { return nil }
            let value = parts.count > 1 ? decode(parts[1]) : ""
            guard let value else { return nil }
            fields.append((key, value))
        }
        return fields
    }

    private static func decode(_ bytes: ArraySlice<UInt8>) -> String? {
        PercentDecoding.decode(bytes, plusAsSpace: true, strict: true).flatMap { String(validating: $0, as: UTF8.self) }
    }
}
