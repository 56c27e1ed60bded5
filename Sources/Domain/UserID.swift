/// A user id: the verified JWT `sub`, the key of the user's grant, safe as the last segment of secret name `gmail/user/{id}`.
///
/// Secrets Manager names allow ASCII letters, digits and `/_+=.@-`. The id leaves out `/`
/// (so no user can name a path under another's secret) and refuses `.` / `..` (so no layer
/// that treats names as paths can be walked out of `gmail/user/`).
package struct UserID: Hashable, Sendable, CustomStringConvertible {
    /// The longest id accepted, in characters.
    package static let maximumLength = 128

    /// The id as it appears in the token and as the grant's key.
    package let rawValue: String

    /// Validates a candidate id.
    ///
    /// - Parameter rawValue: The candidate, usually a JWT `sub`.
    /// - Returns: nil unless 1...128 characters of ASCII letters, digits and `_+=.@-`,
    ///   and not made of dots only ("." / "..").
    package init?(_ rawValue: String) {
        let bytes = rawValue.utf8
        guard (1...Self.maximumLength).contains(bytes.count),
              bytes.allSatisfy(Self.isAllowed),
              !bytes.allSatisfy({ $0 == UInt8(ascii: ".") }) else {
            return nil
        }
        self.rawValue = rawValue
    }

    /// The raw id.
    package var description: String { rawValue }

    // Bytes, not Characters: a Character check would let Unicode letters and digits through.
    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "_"), UInt8(ascii: "+"), UInt8(ascii: "="), UInt8(ascii: "."), UInt8(ascii: "@"), UInt8(ascii: "-"):
            true
        default:
            false
        }
    }
}
