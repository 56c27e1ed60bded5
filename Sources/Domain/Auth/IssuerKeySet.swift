#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Crypto
import _CryptoExtras
import PayPulseCoding

/// The algorithms an identity provider's key may verify: each key pins exactly one.
package enum AsymmetricAlgorithm: String, Sendable, CaseIterable {
    /// RSASSA-PKCS1-v1_5 with SHA-256 (RFC 7518 §3.3), keys of 2048 bits or more.
    case rs256 = "RS256"
    /// ECDSA on P-256 with SHA-256 (RFC 7518 §3.4), the signature as 64 bytes `r || s`.
    case es256 = "ES256"
}

/// One public key of an issuer's JWKS, with the algorithm it verifies.
///
/// The algorithm comes from the key (`kty`, `crv`, and `alg` when present), never from a
/// token: a token's `alg` must name the same algorithm or it fails, which rules out key
/// confusion (an HS256 token MACed with a public key's bytes has no key that verifies it).
struct IssuerKey: Sendable {
    /// `kid`, if the set names it.
    let id: String?
    // One of the two is set. Not an enum with a payload each: Swift would keep the case in
    // the key pointer's spare bits, hidden from LeakSanitizer (the fuzzers).
    private let rsa: _RSA.Signing.PublicKey?
    private let p256: P256.Signing.PublicKey?

    init(id: String?, rsa key: _RSA.Signing.PublicKey) {
        (self.id, self.rsa, self.p256) = (id, key, nil)
    }

    init(id: String?, p256 key: P256.Signing.PublicKey) {
        (self.id, self.rsa, self.p256) = (id, nil, key)
    }

    /// The one algorithm this key verifies.
    var algorithm: AsymmetricAlgorithm { rsa != nil ? .rs256 : .es256 }

    /// Whether `signature` is this key's signature of `signingInput`. An ES256 signature
    /// must be the 64-byte JOSE form; a DER signature (longer) fails.
    func isValid(signature: Data, for signingInput: Substring) -> Bool {
        let message = Data(signingInput.utf8)
        if let rsa {
            return rsa.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: message, padding: .insecurePKCS1v1_5)
        }
        guard let p256, let parsed = Self.joseSignature(signature) else { return false }
        return p256.isValidSignature(parsed, for: message)
    }

    /// An ES256 signature as JOSE writes it: exactly 64 bytes, `r || s`. A DER signature
    /// (what most crypto libraries emit, 70 to 72 bytes) is refused, not converted.
    private static func joseSignature(_ bytes: Data) -> P256.Signing.ECDSASignature? {
        bytes.count == 64 ? try? P256.Signing.ECDSASignature(rawRepresentation: bytes) : nil
    }
}

/// The usable keys of one JWKS document.
///
/// A key this backend cannot or must not use is left out, not fatal to the set: another
/// algorithm or curve, a symmetric (`oct`) key, one marked for encryption (`use: enc`) or
/// without `verify` in `key_ops`, an RSA modulus under 2048 bits, a point not on P-256.
/// A token that names such a key finds none and fails.
struct IssuerKeySet: Sendable {
    /// The largest document read, in bytes: real sets are a few KiB (Google's is under 3).
    static let maximumDocumentSize = 64 * 1024
    /// The most keys kept: providers publish two or three while they rotate.
    static let maximumKeyCount = 16

    let keys: [IssuerKey]
    /// The issuer the key source named with the set (``PayPulsePorts/PublishedKeySet/issuer``).
    let issuer: String?
    /// Every `kid` the document names, the keys left out included: the issuer published
    /// them, so fetching again would not make them usable.
    let namedKeyIDs: Set<String>

    init(keys: [IssuerKey], issuer: String? = nil, namedKeyIDs: Set<String> = []) {
        self.keys = keys
        self.issuer = issuer
        self.namedKeyIDs = namedKeyIDs.union(keys.compactMap(\.id))
    }

    /// Parses a JWKS document.
    /// - Parameters:
    ///   - document: The JWKS.
    ///   - issuer: The issuer the source named with it, if any.
    /// - Returns: The set, or `nil` when the document is too large, not JSON, or not an
    ///   object whose `keys` is an array.
    static func parse(_ document: [UInt8], issuer: String? = nil) -> IssuerKeySet? {
        guard document.count <= maximumDocumentSize, case .object(let fields)? = try? JSONValue.decode(document),
            let entries = fields["keys"]?.arrayValue
        else { return nil }
        let named = Set(entries.prefix(maximumKeyCount * 4).compactMap { $0["kid"]?.stringValue })
        return IssuerKeySet(keys: Array(entries.lazy.compactMap(key(from:)).prefix(maximumKeyCount)), issuer: issuer, namedKeyIDs: named)
    }

    /// What the set says of a token's signature.
    enum SignatureCheck: Equatable {
        /// A key the header names, of the header's algorithm, verifies it.
        case verified
        /// No key matches the `kid` (or the set has several and the header names none).
        case unknownKey
        /// The named keys pin another algorithm than the header's.
        case algorithmMismatch
        /// A key of the right algorithm is named, and the signature does not verify under it.
        case badSignature
    }

    /// Checks a JWS signature under the key its header names. The key pins the algorithm:
    /// an RS256 key never checks an ES256 (or HS256) token, whatever the header says.
    /// - Parameters:
    ///   - signature: The decoded signature segment.
    ///   - signingInput: `header.payload`, as received.
    ///   - kid: The header's `kid`, if any.
    ///   - algorithm: The header's `alg`.
    func check(signature: Data, of signingInput: Substring, kid: String?, algorithm: String) -> SignatureCheck {
        let candidates = candidates(kid: kid)
        guard !candidates.isEmpty else { return .unknownKey }
        let matching = candidates.filter { $0.algorithm.rawValue == algorithm }
        guard !matching.isEmpty else { return .algorithmMismatch }
        return matching.contains { $0.isValid(signature: signature, for: signingInput) } ? .verified : .badSignature
    }

    /// The keys a token's header may use: the one named by `kid`, or the only key when the
    /// header names none (with several keys a `kid` is required).
    func candidates(kid: String?) -> [IssuerKey] {
        guard let kid else { return keys.count == 1 ? keys : [] }
        return keys.filter { $0.id == kid }
    }

    /// Whether the document names this `kid`, usable or not.
    func names(kid: String) -> Bool { namedKeyIDs.contains(kid) }

    private static func key(from entry: JSONValue) -> IssuerKey? {
        guard case .object(let fields) = entry, let type = fields["kty"]?.stringValue else { return nil }
        if let use = fields["use"], use.stringValue != "sig" { return nil }
        if let operations = fields["key_ops"] {
            guard operations.arrayValue?.contains(.string("verify")) == true else { return nil }
        }
        let id = fields["kid"]?.stringValue
        // `alg`, when the set states it, must be the algorithm the key type implies.
        let allows = { (algorithm: AsymmetricAlgorithm) in fields["alg"].map { $0 == .string(algorithm.rawValue) } ?? true }
        let component = { (name: String) in fields[name]?.stringValue.flatMap(Base64URL.decode) }
        switch type {
        case "RSA":
            guard allows(.rs256), let modulus = component("n"), let exponent = component("e"),
                let key = try? _RSA.Signing.PublicKey(n: modulus, e: exponent)
            else { return nil }
            return IssuerKey(id: id, rsa: key)
        case "EC":
            guard allows(.es256), fields["crv"]?.stringValue == "P-256", let x = component("x"), let y = component("y"),
                x.count == 32, y.count == 32, let key = try? P256.Signing.PublicKey(rawRepresentation: x + y)
            else { return nil }
            return IssuerKey(id: id, p256: key)
        default:
            return nil
        }
    }
}
