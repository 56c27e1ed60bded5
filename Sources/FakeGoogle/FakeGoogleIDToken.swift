import Foundation

/// The `id_token` Google adds to a token answer when the grant includes `openid`: a JWT
/// whose claims are `iss`, `aud`, `azp`, `sub`, `email`, `email_verified`, `iat`, `exp`.
/// Google signs it with RS256; the fake's signature is random bytes, since a token received
/// straight from the token endpoint is not checked (OpenID Connect Core 3.1.3.7).
enum FakeGoogleIDToken {
    static func make(clientID: String, subject: String, email: String?, emailVerified: Bool, issuedAt: Date) -> String {
        let iat = Int(issuedAt.timeIntervalSince1970)
        var claims: [String: any Sendable] = [
            "iss": "https://accounts.google.com", "aud": clientID, "azp": clientID, "sub": subject,
            "iat": iat, "exp": iat + 3600,
        ]
        if let email {
            claims["email"] = email
            claims["email_verified"] = emailVerified
        }
        let header = #"{"alg":"RS256","kid":"fake-google-key","typ":"JWT"}"#
        let payload = (try? JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        let signature = Data((0..<256).map { _ in UInt8.random(in: 0...255) })
        return [Data(header.utf8), payload, signature].map(base64URL).joined(separator: ".")
    }

    private static func base64URL(_ data: Data) -> String {
        String(data.base64EncodedString().compactMap { character -> Character? in
            switch character {
            case "+": "-"
            case "/": "_"
            case "=": nil
            default: character
            }
        })
    }
}
