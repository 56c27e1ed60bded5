import Foundation

/// One hostile `Authorization` header value (or none), named for failure messages.
struct AttackCase: Sendable, CustomStringConvertible {
    var group: String
    var name: String
    /// The header value; `nil` sends no `Authorization` header at all.
    var header: String?

    var description: String { "\(group): \(name)" }
}

/// Every forged, tampered, expired, misaddressed or malformed token the handler-level
/// suite sends, built with ``TokenForge`` at ``AuthFixture/now`` for ``AuthFixture/key``.
/// The reason-level checks (which ``AuthenticationError`` each one gives) stay in
/// `TokenHeaderAttackTests`, `ClaimsTests` and `BearerHeaderTests`; this list is about
/// what the routes do with them.
enum AttackCatalog {
    static func all() async throws -> [AttackCase] {
        var cases: [AttackCase] = []
        func add(_ group: String, _ name: String, _ token: String?) {
            cases.append(AttackCase(group: group, name: name, header: token.map { "Bearer \($0)" }))
        }

        for alg in ["none", "None", "NONE"] {
            let header = #"{"alg":"\#(alg)","typ":"JWT"}"#
            add("alg none", "\(alg), no signature", TokenForge.unsigned(header: header))
            add("alg none", "\(alg), junk signature", TokenForge.unsigned(header: header, signature: "c2ln"))
            add("alg none", "\(alg), valid HS256 MAC", try await TokenForge.hmac(header: header))
        }

        let publicKeyDER = Data(base64Encoded: RSAFixture.publicKeyPEM.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined())!
        let rs256Header = #"{"alg":"RS256","typ":"JWT"}"#
        add("HS/RS confusion", "HS256 with the RSA public key PEM as secret", try await TokenForge.hmac(key: RSAFixture.publicKeyPEM))
        add("HS/RS confusion", "HS256 with the RSA public key DER as secret", try await TokenForge.hmac(keyBytes: Array(publicKeyDER)))
        add("HS/RS confusion", "RS256 header, HMAC with the public key", try await TokenForge.hmac(header: rs256Header, key: RSAFixture.publicKeyPEM))
        add("HS/RS confusion", "genuine RS256 signature", try await TokenForge.rs256())
        add("HS/RS confusion", "HS256 header over an RSA signature", try await TokenForge.rs256(header: TokenForge.standardHeader))

        for kid in ["../../../../dev/null", "/etc/passwd", "' OR '1'='1", "1; DROP TABLE users--", "https://attacker.example/k", "file:///dev/null", ""] {
            let header = #"{"alg":"HS256","typ":"JWT","kid":\#(jsonString(kid))}"#
            add("kid injection", kid.isEmpty ? "empty kid" : kid, try await TokenForge.hmac(header: header))
        }
        let attackerKey = "attacker-chosen-secret-0123456789-abcdef"
        add("key headers", "jku", try await TokenForge.hmac(header: #"{"alg":"HS256","jku":"https://attacker.example/jwks.json"}"#, key: attackerKey))
        add("key headers", "x5u", try await TokenForge.hmac(header: #"{"alg":"HS256","x5u":"https://attacker.example/cert.pem"}"#, key: attackerKey))
        add("key headers", "jwk with the attacker's key", try await TokenForge.hmac(
            header: #"{"alg":"HS256","jwk":{"kty":"oct","k":"\#(TokenForge.base64URL(attackerKey))"}}"#, key: attackerKey
        ))
        add("key headers", "x5c", try await TokenForge.hmac(header: #"{"alg":"HS256","x5c":["MIIB"]}"#))

        for (name, iss) in [("another issuer", #""someone-else""#), ("issuer in another case", #""PayPulse""#), ("no issuer", nil)] as [(String, String?)] {
            add("wrong iss", name, try await TokenForge.hmac(payload: TokenForge.payload(["iss": iss])))
        }
        for (name, aud) in [("another audience", #""other-api""#), ("no audience", nil), ("empty list", "[]"), ("list without ours", #"["other-api"]"#)] as [(String, String?)] {
            add("wrong aud", name, try await TokenForge.hmac(payload: TokenForge.payload(["aud": aud])))
        }

        let now = AuthFixture.nowSeconds
        for (name, claims) in [
            ("exp 61 s ago", ["exp": "\(now - 61)"]), ("exp a day ago", ["exp": "\(now - 86_400)"]), ("no exp", ["exp": nil]),
            ("nbf 61 s ahead", ["nbf": "\(now + 61)"]), ("nbf a day ahead", ["nbf": "\(now + 86_400)"]),
        ] as [(String, [String: String?])] {
            add("validity", name, try await TokenForge.hmac(payload: TokenForge.payload(claims)))
        }

        let good = try await TokenForge.hmac()
        let segments = good.split(separator: ".").map(String.init)
        add("truncated", "last character cut", String(good.dropLast()))
        add("truncated", "signature cut in half", segments[0] + "." + segments[1] + "." + String(segments[2].prefix(segments[2].count / 2)))
        add("truncated", "no signature segment", segments[0] + "." + segments[1])
        add("truncated", "header only", segments[0])
        add("truncated", "three empty segments", "..")
        add("truncated", "no token after Bearer", "")

        let padding = #""\#(String(repeating: "x", count: 100_000))""#
        add("oversized", "100 KB of valid claims, correctly signed", try await TokenForge.hmac(payload: TokenForge.payload(["pad": padding])))
        cases.append(AttackCase(group: "oversized", name: "1 MB header of junk", header: "Bearer " + String(repeating: "A", count: 1 << 20)))

        for (name, sub) in [
            ("missing", nil), ("null", "null"), ("number", "42"), ("boolean", "true"), ("array", #"["user-1"]"#), ("object", #"{"id":"user-1"}"#),
            ("with /", #""user-1/other""#), ("path traversal", #""../user-2""#), ("..", #""..""#), (".", #"".""#),
            ("secret name", #""gmail/user/user-2""#), ("NUL inside", #""user\u00001""#), ("NUL alone", #""\u0000""#),
            ("600 characters", jsonString(String(repeating: "u", count: 600))), ("empty", #""""#), ("one space", #"" ""#),
            ("inner space", #""user 1""#), ("tab", #""\t""#), ("newline", #""user-1\n""#),
        ] as [(String, String?)] {
            add("sub", name, try await TokenForge.hmac(payload: TokenForge.payload(["sub": sub])))
        }

        cases.append(AttackCase(group: "header", name: "no Authorization header", header: nil))
        cases.append(AttackCase(group: "header", name: "Basic credentials", header: "Basic dXNlci0xOnBhc3N3b3Jk"))
        cases.append(AttackCase(group: "header", name: "two tokens", header: "Bearer \(good) \(good)"))
        return cases
    }

    /// Tokens the routes must accept: the controls that show the recording sees calls.
    static func accepted() async throws -> [AttackCase] {
        let now = AuthFixture.nowSeconds
        return [
            AttackCase(group: "control", name: "plain", header: "Bearer \(try await TokenForge.hmac())"),
            AttackCase(group: "control", name: "exp 30 s ago, within the leeway", header: "Bearer \(try await TokenForge.hmac(payload: TokenForge.payload(["exp": "\(now - 30)"])))"),
            AttackCase(group: "control", name: "nbf 60 s ahead, at the leeway", header: "Bearer \(try await TokenForge.hmac(payload: TokenForge.payload(["nbf": "\(now + 60)"])))"),
        ]
    }

    /// `text` as a JSON string literal.
    static func jsonString(_ text: String) -> String {
        String(decoding: try! JSONEncoder().encode(text), as: UTF8.self)
    }
}
