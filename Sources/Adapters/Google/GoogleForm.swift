/// An `application/x-www-form-urlencoded` body, the only encoding Google's OAuth
/// endpoints are documented to take.
struct GoogleForm: Sendable {
    /// The media type to send with it.
    static let contentType = "application/x-www-form-urlencoded"

    private let fields: [(name: String, value: String)]

    init(_ fields: [(name: String, value: String)]) { self.fields = fields }

    /// `name=value&…`, each side percent-encoded.
    var bytes: [UInt8] {
        var out: [UInt8] = []
        for (index, field) in fields.enumerated() {
            if index > 0 { out.append(UInt8(ascii: "&")) }
            Self.append(field.name, to: &out)
            out.append(UInt8(ascii: "="))
            Self.append(field.value, to: &out)
        }
        return out
    }

    /// Keeps only RFC 3986 unreserved bytes as they are and `%XX`-encodes every other UTF-8
    /// byte, so `+`, `/`, `=` and `&` inside a token can never change its meaning.
    private static func append(_ text: String, to out: inout [UInt8]) {
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            if isUnreserved(byte) {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            }
        }
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }
}
