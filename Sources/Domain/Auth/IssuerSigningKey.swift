#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Crypto
import _CryptoExtras
import PayPulseCoding

/// A private key an identity provider signs tokens with: the counterpart of ``IssuerKey``,
/// held by the local issuer of `paypulse serve --issuer` and by `paypulse risc` (a Google
/// service account's key), never by a function.
///
/// Its `kid` is the RFC 7638 thumbprint of the public key, so a new key never takes an old
/// one's id and the same key always has the same one, unless another party already named
/// the key.
package struct IssuerSigningKey: Sendable {
    private enum Signer: Sendable {
        case rsa(_RSA.Signing.PrivateKey)
        case p256(P256.Signing.PrivateKey)
    }

    private let signer: Signer
    /// The `kid` a token's header and the published JWK carry.
    package let id: String

    private init(_ signer: Signer, id: String? = nil) throws {
        self.signer = signer
        self.id = try id ?? Base64URL.encode(SHA256.hash(data: try JSONCoding.encode(Self.thumbprintMembers(signer))))
    }

    /// A new random key: RSA-2048 for RS256, P-256 for ES256.
    /// - Throws: swift-crypto's error when RSA generation fails.
    package static func generate(_ algorithm: AsymmetricAlgorithm) throws -> IssuerSigningKey {
        switch algorithm {
        case .rs256: try IssuerSigningKey(.rsa(_RSA.Signing.PrivateKey(keySize: .bits2048)))
        case .es256: try IssuerSigningKey(.p256(P256.Signing.PrivateKey()))
        }
    }

    /// Reads a key written by ``pemRepresentation``, or a PKCS#8 PEM such as a Google
    /// service account's `private_key`.
    /// - Parameters:
    ///   - algorithm: The one algorithm the key signs with.
    ///   - pem: The private key.
    ///   - id: The `kid` when another party named the key (a service account's
    ///     `private_key_id`); `nil` takes the thumbprint.
    /// - Throws: swift-crypto's error for a PEM that is not such a key (an RSA key under
    ///   2048 bits included).
    package init(algorithm: AsymmetricAlgorithm, pemRepresentation pem: String, id: String? = nil) throws {
        switch algorithm {
        case .rs256: try self.init(.rsa(_RSA.Signing.PrivateKey(pemRepresentation: pem)), id: id)
        case .es256: try self.init(.p256(P256.Signing.PrivateKey(pemRepresentation: pem)), id: id)
        }
    }

    /// The one algorithm this key signs with.
    package var algorithm: AsymmetricAlgorithm {
        switch signer {
        case .rsa: .rs256
        case .p256: .es256
        }
    }

    /// The private key as PEM, for the file that keeps it.
    package var pemRepresentation: String {
        switch signer {
        case .rsa(let key): key.pemRepresentation
        case .p256(let key): key.pemRepresentation
        }
    }

    /// The public key as a JWK, as ``IssuerKeySet`` reads it: `kid`, `alg`, `use: sig`.
    package var publicJWK: [String: String] {
        // The thumbprint's members cannot fail to read twice: `id` was made from them.
        var members = (try? Self.thumbprintMembers(signer)) ?? [:]
        members["kid"] = id
        members["alg"] = algorithm.rawValue
        members["use"] = "sig"
        return members
    }

    /// The JWKS document publishing the public halves of `keys`.
    /// - Throws: An `EncodingError` (not expected for strings).
    package static func keySetDocument(_ keys: [IssuerSigningKey]) throws -> [UInt8] {
        try JSONCoding.encode(["keys": keys.map(\.publicJWK)])
    }

    /// The JWS signature of `signingInput`, base64url: PKCS#1 v1.5 over SHA-256 for RS256,
    /// ECDSA's 64 bytes `r || s` for ES256 (RFC 7518 §3.3, §3.4).
    func sign(_ signingInput: String) throws -> String {
        let message = Data(signingInput.utf8)
        switch signer {
        case .rsa(let key): return Base64URL.encode(try key.signature(for: message, padding: .insecurePKCS1v1_5).rawRepresentation)
        case .p256(let key): return Base64URL.encode(try key.signature(for: message).rawRepresentation)
        }
    }

    /// The public key's required JWK members (RFC 7638 §3.2); sorted and compact, as
    /// ``JSONCoding`` writes them, they are the thumbprint's input.
    private static func thumbprintMembers(_ signer: Signer) throws -> [String: String] {
        switch signer {
        case .rsa(let key):
            let primitives = try key.publicKey.getKeyPrimitives()
            return ["kty": "RSA", "n": Base64URL.encode(primitives.modulus), "e": Base64URL.encode(primitives.publicExponent)]
        case .p256(let key):
            let point = key.publicKey.rawRepresentation
            return ["kty": "EC", "crv": "P-256", "x": Base64URL.encode(point.prefix(32)), "y": Base64URL.encode(point.suffix(32))]
        }
    }
}
