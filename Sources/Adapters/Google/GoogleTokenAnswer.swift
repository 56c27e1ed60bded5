#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseCoding
import PayPulsePorts

/// The JSON of a successful refresh:
/// `{"access_token", "expires_in", "scope", "token_type", "refresh_token"?, "id_token"?}`.
struct GoogleTokenAnswer: Decodable {
    var accessToken: String?
    var expiresIn: Int?
    var scope: String?
    var tokenType: String?
    var refreshToken: String?
    var idToken: String?

    private enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case expiresIn = "expires_in"
        case scope
        case tokenType = "token_type"
        case refreshToken = "refresh_token"
        case idToken = "id_token"
    }

    /// Reads a 200 body into the port's answer.
    /// - Throws: ``GoogleOAuthError`` `.rejected` / `malformed_response` when the body is not
    ///   JSON, has no access token, no positive lifetime, or an `id_token` that is not a
    ///   readable JWT: such an answer cannot be stored.
    static func answer(from body: [UInt8]) throws -> GoogleRefreshAnswer {
        guard let answer = read(body) else {
            throw malformed("the body is not a token JSON object")
        }
        guard let accessToken = answer.accessToken, !accessToken.isEmpty else {
            throw malformed("no access_token")
        }
        guard let expiresIn = answer.expiresIn, expiresIn > 0 else {
            throw malformed("no positive expires_in")
        }
        var identity: GoogleIdentity?
        if let idToken = answer.idToken, !idToken.isEmpty {
            guard let read = GoogleIDToken.identity(from: idToken) else { throw malformed("its id_token is not a readable JWT") }
            identity = read
        }
        return GoogleRefreshAnswer(
            accessToken: accessToken,
            expiresIn: expiresIn,
            scope: answer.scope,
            tokenType: answer.tokenType.flatMap { $0.isEmpty ? nil : $0 } ?? "Bearer",
            refreshToken: answer.refreshToken.flatMap { $0.isEmpty ? nil : $0 },
            identity: identity
        )
    }

    /// The answer as `JSONDecoder` reads it, by hand where ``JSONValue/fastParse(_:)`` answers.
    private static func read(_ body: [UInt8]) -> GoogleTokenAnswer? {
        guard let value = JSONValue.fastParse(body) else { return try? JSONDecoder().decode(GoogleTokenAnswer.self, from: Data(body)) }
        guard case .object(let fields) = value else { return nil }
        return try? GoogleTokenAnswer(
            accessToken: fields.string("access_token"), expiresIn: fields.integer("expires_in"), scope: fields.string("scope"),
            tokenType: fields.string("token_type"), refreshToken: fields.string("refresh_token"), idToken: fields.string("id_token")
        )
    }

    private static func malformed(_ detail: String) -> GoogleOAuthError {
        GoogleOAuthError(kind: .rejected, code: "malformed_response", detail: "Google answered 200 but \(detail)")
    }
}

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
