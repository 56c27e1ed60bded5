import Crypto
import Foundation
import _CryptoExtras
import PayPulseDomain
import PayPulsePorts

/// An identity provider for the `jwks` tests: an RS256 and an ES256 key pair, the JWKS that
/// publishes them, and tokens signed with swift-crypto's own signers (PyJWT signs in the
/// interop test, `JWKSInteropTests`).
struct TestIssuer: Sendable {
    static let issuer = "https://issuer.example.test"
    static let audience = "paypulse-ios"
    /// Generating RSA keys is slow in a debug build; one pair serves every test.
    static let rsa = try! _RSA.Signing.PrivateKey(pemRepresentation: RSAFixture.privateKeyPEM)
    static let ec = P256.Signing.PrivateKey()

    /// The settings for this issuer.
    static func settings(tokenUse: String? = nil, issuer: String = issuer, audience: String = audience) throws -> AuthSettings {
        try AuthSettings.issuerKeys(issuer: issuer, audience: audience, tokenUse: tokenUse)
    }

    /// The public JWK of an RSA key.
    static func rsaJWK(_ key: _RSA.Signing.PublicKey = rsa.publicKey, kid: String? = "rsa-1", extra: String = "") throws -> String {
        let primitives = try key.getKeyPrimitives()
        let kidMember = kid.map { #""kid":"\#($0)","# } ?? ""
        return #"{"kty":"RSA",\#(kidMember)"n":"\#(TokenForge.base64URL(primitives.modulus))","e":"\#(TokenForge.base64URL(primitives.publicExponent))"\#(extra)}"#
    }

    /// The public JWK of a P-256 key.
    static func ecJWK(_ key: P256.Signing.PublicKey = ec.publicKey, kid: String? = "ec-1", extra: String = "") -> String {
        let raw = key.rawRepresentation
        let kidMember = kid.map { #""kid":"\#($0)","# } ?? ""
        return #"{"kty":"EC","crv":"P-256",\#(kidMember)"x":"\#(TokenForge.base64URL(raw.prefix(32)))","y":"\#(TokenForge.base64URL(raw.suffix(32)))"\#(extra)}"#
    }

    /// A JWKS document of these keys.
    static func keySet(_ keys: [String]) -> String { #"{"keys":[\#(keys.joined(separator: ","))]}"# }

    /// The usual set: both keys.
    static func standardKeySet() throws -> String { keySet([try rsaJWK(), ecJWK()]) }

    /// Good claims for this issuer at ``AuthFixture/now``, with overrides (raw JSON; nil removes).
    static func payload(_ overrides: [String: String?] = [:]) -> String {
        var fields: [String: String?] = ["iss": #""\#(issuer)""#, "aud": #""\#(audience)""#]
        for (name, value) in overrides { fields.updateValue(value, forKey: name) }
        return TokenForge.payload(fields)
    }

    /// `header.payload` signed RS256 (PKCS#1 v1.5, SHA-256) with `key`.
    static func rs256(kid: String? = "rsa-1", payload: String = payload(), key: _RSA.Signing.PrivateKey = rsa, header: String? = nil) throws -> String {
        let input = TokenForge.base64URL(header ?? Self.header(alg: "RS256", kid: kid)) + "." + TokenForge.base64URL(payload)
        let signature = try key.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5)
        return input + "." + TokenForge.base64URL(signature.rawRepresentation)
    }

    /// `header.payload` signed ES256 with `key`, the signature as JOSE's `r || s` or, to
    /// attack, as DER.
    static func es256(kid: String? = "ec-1", payload: String = payload(), key: P256.Signing.PrivateKey = ec, der: Bool = false, header: String? = nil) throws -> String {
        let input = TokenForge.base64URL(header ?? Self.header(alg: "ES256", kid: kid)) + "." + TokenForge.base64URL(payload)
        let signature = try key.signature(for: Data(input.utf8))
        return input + "." + TokenForge.base64URL(der ? signature.derRepresentation : signature.rawRepresentation)
    }

    static func header(alg: String, kid: String?) -> String {
        kid.map { #"{"alg":"\#(alg)","kid":"\#($0)","typ":"JWT"}"# } ?? #"{"alg":"\#(alg)","typ":"JWT"}"#
    }
}

/// A key endpoint the test scripts: the document it serves, its `max-age`, the issuer it
/// names with them (as a RISC discovery document does), whether it is down, and how many
/// times it was asked.
actor ScriptedKeySource: IssuerKeySource {
    var document: String
    var maxAge: Int?
    let issuer: String?
    var unreachable = false
    private(set) var fetches = 0

    init(document: String, maxAge: Int? = nil, issuer: String? = nil) {
        self.document = document
        self.maxAge = maxAge
        self.issuer = issuer
    }

    func serve(_ document: String, maxAge: Int? = nil) {
        self.document = document
        self.maxAge = maxAge
    }

    func setUnreachable(_ down: Bool) { unreachable = down }

    func fetchKeySet() async throws(IssuerKeysUnavailable) -> PublishedKeySet {
        fetches += 1
        if unreachable { throw IssuerKeysUnavailable(reason: "connection refused") }
        return PublishedKeySet(document: Array(document.utf8), maxAge: maxAge, issuer: issuer)
    }
}
