/// `%XX` decoding, shared by form bodies (strict, `+` is a space) and query strings
/// (lenient, `+` kept, as API Gateway passes it).
public enum PercentDecoding {
    /// Decodes `bytes`.
    /// - Parameters:
    ///   - plusAsSpace: read `+` as a space (form encoding).
    ///   - strict: refuse a malformed escape (`nil`) instead of keeping it literally.
    /// - Returns: the decoded bytes, or `nil` for a malformed escape when `strict`.
    public static func decode(_ bytes: some Collection<UInt8>, plusAsSpace: Bool, strict: Bool) -> [UInt8]? {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var input = Array(bytes)[...]
        while let byte = input.popFirst() {
            if byte == UInt8(ascii: "%") {
                if input.count >= 2, let high = HexDigit.value(input[input.startIndex]), let low = HexDigit.value(input[input.startIndex + 1]) {
                    output.append(high << 4 | low)
                    input = input.dropFirst(2)
                    continue
                }
                if strict { return nil }
                output.append(byte)
            } else if byte == UInt8(ascii: "+"), plusAsSpace {
                output.append(UInt8(ascii: " "))
            } else {
                output.append(byte)
            }
        }
        return output
    }
}
