import Crypto
import Foundation
import PayPulseDomain
import PayPulseFuzzSupport

/// The fixed setting every input is checked against; the seeds in Fuzz/corpus/jwt-front
/// are minted for it (Fuzz/make-seeds.py).
enum JWTFront {
    /// The documented development key: real HS256, and the seeds can be signed with it.
    static let key = Array(AuthSettings.developmentKey.utf8)
    /// A fixed clock, so that seeds minted to be valid stay valid: 2026-01-01T00:00:00Z.
    static let now = Date(timeIntervalSince1970: 1_767_225_600)

    static let authenticator: Authenticator = {
        do {
            return try Authenticator(settings: AuthSettings(key: key))
        } catch {
            preconditionFailure("the fuzz authenticator could not be built: \(error)")
        }
    }()

    /// An oracle written apart from `HS256Key` and `BearerToken`: the third segment is the HMAC-SHA256 of the first two.
    /// `token` is what follows `Bearer ` in the header, so spaces and tabs around it are the
    /// header's separators, not part of the token: an accepted token is the one word left.
    static func hasValidSignature(_ token: String) -> Bool {
        let words = token.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard words.count == 1, let word = words.first else { return false }
        return hasValidSignature(compact: String(word))
    }

    private static func hasValidSignature(compact token: String) -> Bool {
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, let signature = base64URLDecoded(segments[2]) else { return false }
        let signingInput = Data(token.utf8.prefix(segments[0].utf8.count + 1 + segments[1].utf8.count))
        return HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: signingInput, using: SymmetricKey(data: key))
    }

    private static func base64URLDecoded(_ text: Substring) -> Data? {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
        return Data(base64Encoded: standard)
    }
}
