#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Takes the token out of an `Authorization` header and checks its shape, before any
/// JSON or crypto sees it.
enum BearerToken {
    /// Tokens over 8 KiB are refused unparsed: ours are a few hundred bytes, and a bound
    /// keeps hostile input from costing base64 and JSON work.
    static let maximumTokenBytes = 8 * 1024

    /// The token in `Bearer <token>` (scheme in any case, one token, spaces or tabs between).
    /// - Throws: ``AuthenticationError`` for another scheme, no token or several, or an oversized value.
    static func extract(from header: String) throws(AuthenticationError) -> String {
        // Bound the whole header first so a huge value is not even split.
        guard header.utf8.count <= maximumTokenBytes + 64 else { throw .tokenTooLarge }
        let parts = header.splitting(where: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }, omittingEmpty: true) {
            $0.split(whereSeparator: { $0 == " " || $0 == "\t" })
        }
        guard let scheme = parts.first else { throw .missingCredentials }
        guard scheme.lowercased() == "bearer" else { throw .notBearer }
        guard parts.count == 2 else { throw .malformedAuthorization }
        let token = String(parts[1])
        guard token.utf8.count <= maximumTokenBytes else { throw .tokenTooLarge }
        return token
    }

    /// The three segments of a compact JWS.
    struct Segments {
        /// The base64url JOSE header.
        var header: Substring
        /// The base64url payload.
        var payload: Substring
        /// The base64url signature.
        var signature: Substring
        /// `header.payload`, what the signature covers.
        var signingInput: Substring
    }

    /// The segments of a compact JWS: exactly three non-empty segments of base64url
    /// characters. An empty signature (an unsecured `alg: none` token) fails here.
    /// - Throws: ``AuthenticationError/malformedToken``.
    static func segments(of token: String) throws(AuthenticationError) -> Segments {
        let segments = token.splitting(where: { $0 == UInt8(ascii: ".") }, omittingEmpty: false) {
            $0.split(separator: ".", omittingEmptySubsequences: false)
        }
        guard segments.count == 3,
              segments.allSatisfy({ !$0.isEmpty && $0.utf8.count % 4 != 1 && $0.utf8.allSatisfy(Base64URL.isAlphabet) }) else {
            throw .malformedToken
        }
        let signingInput = token[segments[0].startIndex..<segments[1].endIndex]
        return Segments(header: segments[0], payload: segments[1], signature: segments[2], signingInput: signingInput)
    }
}

extension String {
    /// `split` of an ASCII string done on its UTF-8 bytes, where each byte is one
    /// `Character` and so the parts are the same; `characterSplit` (the `Character` walk,
    /// which cost a tenth of a warm invocation) for any other string.
    fileprivate func splitting(
        where isSeparator: (UInt8) -> Bool, omittingEmpty: Bool, characterSplit: (String) -> [Substring]
    ) -> [Substring] {
        guard utf8.allSatisfy({ $0 < 0x80 }) else { return characterSplit(self) }
        return utf8.split(omittingEmptySubsequences: omittingEmpty, whereSeparator: isSeparator).map { Substring($0) }
    }
}

/// Unpadded base64url (RFC 4648 §5), as JWS compact serialisation uses it.
enum Base64URL {
    /// Whether a byte is in the base64url alphabet (no padding).
    static func isAlphabet(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default:
            false
        }
    }

    /// Decodes an unpadded base64url string; nil if it is not one.
    static func decode(_ text: some StringProtocol) -> Data? {
        guard text.utf8.allSatisfy(isAlphabet), text.utf8.count % 4 != 1 else { return nil }
        var standard: [UInt8] = text.utf8.map {
            switch $0 {
            case UInt8(ascii: "-"): UInt8(ascii: "+")
            case UInt8(ascii: "_"): UInt8(ascii: "/")
            default: $0
            }
        }
        standard += Array(repeating: UInt8(ascii: "="), count: (4 - standard.count % 4) % 4)
        return Data(base64Encoded: Data(standard))
    }

    /// Encodes bytes as unpadded base64url.
    static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var text = Data(bytes).base64EncodedString()
        while text.last == "=" { text.removeLast() }
        return String(String.UnicodeScalarView(text.unicodeScalars.map {
            switch $0 {
            case "+": "-"
            case "/": "_"
            default: $0
            }
        }))
    }
}
