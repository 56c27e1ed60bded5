#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulsePorts

/// Reads the claims of an `id_token` from a token-endpoint answer. The signature is not
/// checked: the token came straight from Google's token endpoint over the connection we
/// opened (OpenID Connect Core 3.1.3.7). The caller still checks the audience.
enum GoogleIDToken {
    /// The identity in `token`, or `nil` when it is not a JWT with a string `sub`.
    static func identity(from token: String) -> GoogleIdentity? {
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, let payload = base64URLDecoded(segments[1]),
              let claims = try? JSONDecoder().decode(Claims.self, from: payload), !claims.sub.isEmpty
        else { return nil }
        return GoogleIdentity(subject: claims.sub, email: claims.email, emailVerified: claims.emailVerified, audience: claims.aud)
    }

    private struct Claims: Decodable {
        var sub: String
        var email: String?
        var emailVerified: Bool?
        var aud: [String]

        private enum CodingKeys: String, CodingKey { case sub, email, aud, emailVerified = "email_verified" }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            sub = try container.decode(String.self, forKey: .sub)
            email = try? container.decodeIfPresent(String.self, forKey: .email)
            // A boolean in id_tokens; some Google answers have carried the string "true".
            if let flag = try? container.decodeIfPresent(Bool.self, forKey: .emailVerified) {
                emailVerified = flag
            } else {
                emailVerified = (try? container.decodeIfPresent(String.self, forKey: .emailVerified)).flatMap { Bool($0) }
            }
            if let single = try? container.decode(String.self, forKey: .aud) {
                aud = [single]
            } else {
                aud = (try? container.decodeIfPresent([String].self, forKey: .aud)) ?? []
            }
        }
    }

    /// base64url without padding (RFC 7515 §2) to bytes.
    private static func base64URLDecoded(_ text: Substring) -> Data? {
        var base64 = String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}
