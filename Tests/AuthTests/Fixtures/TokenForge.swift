#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JWTKit

/// Hand-made tokens: any header, any payload, any signature, so the tests can try what an
/// attacker would send rather than only what the minter produces.
enum TokenForge {
    static let standardHeader = #"{"alg":"HS256","typ":"JWT"}"#

    /// Unpadded base64url.
    static func base64URL(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString()
            .replacing("+", with: "-")
            .replacing("/", with: "_")
            .replacing("=", with: "")
    }

    static func base64URL(_ text: String) -> String { base64URL(Array(text.utf8)) }

    /// A payload with good claims for `AuthFixture`, with `overrides` (raw JSON values;
    /// nil removes the claim).
    static func payload(_ overrides: [String: String?] = [:]) -> String {
        var fields: [String: String] = [
            "sub": #""user-1""#,
            "iss": #""paypulse""#,
            "aud": #""paypulse-api""#,
            "iat": "\(AuthFixture.nowSeconds - 3600)",
            "exp": "\(AuthFixture.nowSeconds + 600)",
        ]
        for (name, value) in overrides {
            fields[name] = value
        }
        return "{" + fields.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",") + "}"
    }

    /// `header.payload` signed with HMAC (`HS256` by default) under `key`.
    static func hmac(
        header: String = standardHeader, payload: String = payload(),
        key: String = AuthFixture.key, digest: DigestAlgorithm = .sha256
    ) async throws -> String {
        try await hmac(header: header, payload: payload, keyBytes: Array(key.utf8), digest: digest)
    }

    /// `header.payload` signed with HMAC under raw key bytes (e.g. a DER public key).
    static func hmac(
        header: String = standardHeader, payload: String = payload(), keyBytes: [UInt8], digest: DigestAlgorithm = .sha256
    ) async throws -> String {
        let input = base64URL(header) + "." + base64URL(payload)
        let signer = try await JWTKeyCollection().add(hmac: HMACKey(from: keyBytes), digestAlgorithm: digest).getKey()
        return input + "." + base64URL(try signer.sign(Array(input.utf8)))
    }

    /// `header.payload` signed RS256 with the fixture's private key.
    static func rs256(header: String = #"{"alg":"RS256","typ":"JWT"}"#, payload: String = payload()) async throws -> String {
        let input = base64URL(header) + "." + base64URL(payload)
        let key = try Insecure.RSA.PrivateKey(pem: RSAFixture.privateKeyPEM)
        let signer = try await JWTKeyCollection().add(rsa: key, digestAlgorithm: .sha256).getKey()
        return input + "." + base64URL(try signer.sign(Array(input.utf8)))
    }

    /// Header and payload with a literal signature segment (possibly empty).
    static func unsigned(header: String, payload: String = payload(), signature: String = "") -> String {
        base64URL(header) + "." + base64URL(payload) + "." + signature
    }
}
