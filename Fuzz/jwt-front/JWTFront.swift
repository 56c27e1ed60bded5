import Crypto
import Foundation
import _CryptoExtras
import PayPulseDomain
import PayPulseFuzzSupport
import PayPulsePorts

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

    /// The `jwks` side: an identity provider's RS256 and ES256 public keys, served by
    /// ``FixedKeySet`` (their private halves are in Fuzz/make-seeds.py, which signs seeds).
    static let issuer = "https://issuer.fuzz.test"
    static let audience = "paypulse-fuzz"
    static let issuerKeySet = #"{"keys":[{"kty":"RSA","kid":"fuzz-rsa","n":"tPa64SEPGAK-HTd3qetHqW8DX_JgnDVAZFaOzLoZig4ZRm7bSFhE1hl2IijTfHgJn2Rk72p230UwNsVyjKK_koNFPR0hkEhhGVtdqBap2fvHxa8Tmnqv3iQPEWMKJ6shXMgzpZn4xGedCAlH7PrTqGLDRUZZND_oJL-UlLQH-7LBDDe36KFoCPNCQLByvqc_POjG8lDu6Ye2MEA7oVkTRJprkn4HUPjEjQqyyZZwbiFASIcfuAlqRbriRec8hBCqIuTh2fQzbMPaG5rTcVS0bn5jzEyiR2LO2tQ71uGNsMC3qrUJv_BYSDIocsLybfncdRs-Pw9gmNpxCNsJCqMDMQ","e":"AQAB"},{"kty":"EC","crv":"P-256","kid":"fuzz-ec","x":"HIGMn2UBwRi4579rLWGGWb0BsS0XYF6IMCK93Jc__as","y":"HLkkYj-0sdT9xXr-qyHusuzBUmNRTAe0_fUtXp8jnOg"}]}"#

    static let issuerAuthenticator: Authenticator = {
        do {
            return Authenticator(settings: try AuthSettings.issuerKeys(issuer: issuer, audience: audience), issuerKeys: FixedKeySet())
        } catch {
            preconditionFailure("the fuzz issuer authenticator could not be built: \(error)")
        }
    }()

    /// The key endpoint: always the fixture's set, kept a day (so one fetch per process).
    struct FixedKeySet: IssuerKeySource {
        func fetchKeySet() async throws(IssuerKeysUnavailable) -> PublishedKeySet {
            PublishedKeySet(document: Array(issuerKeySet.utf8), maxAge: 86_400)
        }
    }

    /// An oracle written apart from `IssuerKeySet`, `TokenHeaderPolicy` and `BearerToken`:
    /// the third segment verifies over the first two under one of the fixture's keys, as
    /// RS256 (PKCS#1 v1.5, SHA-256) or as ES256 (64 bytes `r || s`).
    static func hasValidIssuerSignature(_ token: String) -> Bool {
        let words = token.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard words.count == 1, let word = words.first else { return false }
        let segments = word.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, let signature = base64URLDecoded(segments[2]) else { return false }
        let message = Data(word.utf8.prefix(segments[0].utf8.count + 1 + segments[1].utf8.count))
        let rsaValid = fixtureRSA.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: message, padding: .insecurePKCS1v1_5)
        let ecValid = signature.count == 64 && (try? P256.Signing.ECDSASignature(rawRepresentation: signature)).map { fixtureEC.isValidSignature($0, for: message) } == true
        return rsaValid || ecValid
    }

    /// An oracle written apart from `TokenHeaderPolicy`: whether the first segment of the
    /// token's one word decodes to a header that holds a `kid` member at all. Only such a
    /// token can find the keys unavailable, the fixture's keys being always served: a `kid`
    /// the held set lacks is "try again" until the set may be fetched again for it.
    static func headerNamesAKey(_ token: String) -> Bool {
        let words = token.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard words.count == 1, let word = words.first, let first = word.split(separator: ".", omittingEmptySubsequences: false).first,
              let header = base64URLDecoded(first)
        else { return false }
        return Array(header).containsRun(Array(#""kid""#.utf8))
    }

    private static let fixtureRSA: _RSA.Signing.PublicKey = {
        guard let n = base64URLDecoded("tPa64SEPGAK-HTd3qetHqW8DX_JgnDVAZFaOzLoZig4ZRm7bSFhE1hl2IijTfHgJn2Rk72p230UwNsVyjKK_koNFPR0hkEhhGVtdqBap2fvHxa8Tmnqv3iQPEWMKJ6shXMgzpZn4xGedCAlH7PrTqGLDRUZZND_oJL-UlLQH-7LBDDe36KFoCPNCQLByvqc_POjG8lDu6Ye2MEA7oVkTRJprkn4HUPjEjQqyyZZwbiFASIcfuAlqRbriRec8hBCqIuTh2fQzbMPaG5rTcVS0bn5jzEyiR2LO2tQ71uGNsMC3qrUJv_BYSDIocsLybfncdRs-Pw9gmNpxCNsJCqMDMQ"), let e = base64URLDecoded("AQAB"), let key = try? _RSA.Signing.PublicKey(n: n, e: e) else {
            preconditionFailure("the fixture RSA key does not parse")
        }
        return key
    }()

    private static let fixtureEC: P256.Signing.PublicKey = {
        guard let x = base64URLDecoded("HIGMn2UBwRi4579rLWGGWb0BsS0XYF6IMCK93Jc__as"), let y = base64URLDecoded("HLkkYj-0sdT9xXr-qyHusuzBUmNRTAe0_fUtXp8jnOg"), let key = try? P256.Signing.PublicKey(rawRepresentation: x + y) else {
            preconditionFailure("the fixture P-256 key does not parse")
        }
        return key
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
