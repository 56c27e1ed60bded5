#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Crypto
import PayPulsePorts

/// A grant's refresh token as Google's `token-revoked` events name it, never the token:
/// each of the two identifiers Google may send (``OAuthTokenSubject/IdentifierAlgorithm``)
/// under a keyed digest (``RefreshTokenDigester``). Stored with the token set and as the
/// indexed listing attributes ``IndexedGrantAttribute/refreshTokenPrefix`` and
/// ``IndexedGrantAttribute/refreshTokenHash``, so an event finds its grant through an index
/// while a listing, which anyone allowed to list may read, holds nothing that helps guess
/// the token.
package struct RefreshTokenDigests: Sendable, Equatable {
    /// The digest of the token's first 16 characters.
    package var prefix: String
    /// The digest of base64 of SHA-512 of SHA-512 of the token.
    package var hash: String

    /// Creates digests.
    package init(prefix: String, hash: String) {
        self.prefix = prefix
        self.hash = hash
    }

    /// The digest of the identifier made by `algorithm`.
    package subscript(algorithm: OAuthTokenSubject.IdentifierAlgorithm) -> String {
        switch algorithm {
        case .prefix: prefix
        case .hashBase64SHA512SHA512: hash
        }
    }

    /// The indexed attribute a digest of `algorithm`'s identifier is listed under.
    package static func attribute(for algorithm: OAuthTokenSubject.IdentifierAlgorithm) -> IndexedGrantAttribute {
        switch algorithm {
        case .prefix: .refreshTokenPrefix
        case .hashBase64SHA512SHA512: .refreshTokenHash
        }
    }
}

/// Makes ``RefreshTokenDigests`` under the deployment's key (`token_digest_key` in the client
/// ID secret, ``GoogleClients``): HMAC-SHA-256 of the identifier, so a digest matches
/// only under our key and a listing leaks nothing an attacker can test a token against.
package struct RefreshTokenDigester: Sendable, Equatable {
    /// The fewest characters a key may have (256 bits of base64 or hex text).
    package static let minimumKeyLength = 32

    private let key: SymmetricKey

    /// A digester under `key`'s UTF-8 bytes; `nil` when the key is shorter than
    /// ``minimumKeyLength`` characters.
    package init?(key: String) {
        guard key.count >= Self.minimumKeyLength else { return nil }
        self.key = SymmetricKey(data: Array(key.utf8))
    }

    /// A new key: 256 random bits (the system's secure generator) as 64 hexadecimal digits.
    package static func newKey() -> String {
        (0..<32).map { _ in
            let digits = String(UInt8.random(in: .min ... .max), radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
    }

    /// The digests of `refreshToken`'s two identifiers.
    package func digests(of refreshToken: String) -> RefreshTokenDigests {
        let hashed = SHA512.hash(data: Array(SHA512.hash(data: Array(refreshToken.utf8))))
        return RefreshTokenDigests(
            prefix: digest(.prefix, identifier: String(refreshToken.prefix(16))),
            hash: digest(.hashBase64SHA512SHA512, identifier: Data(hashed).base64EncodedString())
        )
    }

    /// The digest a grant whose token `subject` names is listed under; `nil` when the
    /// identifier cannot be of its algorithm's form (a hash that is not 64 bytes of base64,
    /// in either alphabet, padded or not).
    package func digest(of subject: OAuthTokenSubject) -> String? {
        switch subject.identifierAlgorithm {
        case .prefix:
            return digest(.prefix, identifier: subject.identifier)
        case .hashBase64SHA512SHA512:
            guard let bytes = Self.base64Bytes(subject.identifier), bytes.count == SHA512.byteCount else { return nil }
            return digest(.hashBase64SHA512SHA512, identifier: Data(bytes).base64EncodedString())
        }
    }

    /// The algorithm's name and the identifier, apart, under the key: two algorithms never
    /// share a digest.
    private func digest(_ algorithm: OAuthTokenSubject.IdentifierAlgorithm, identifier: String) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: Array((algorithm.rawValue + "\n" + identifier).utf8), using: key)
        return Base64URL.encode(code)
    }

    /// Base64 of either alphabet, padding optional.
    private static func base64Bytes(_ text: String) -> [UInt8]? {
        var unpadded = Substring(text)
        while unpadded.last == "=" { unpadded.removeLast() }
        let urlAlphabet = String(String.UnicodeScalarView(unpadded.unicodeScalars.map {
            switch $0 {
            case "+": "-"
            case "/": "_"
            default: $0
            }
        }))
        return Base64URL.decode(urlAlphabet).map(Array.init)
    }
}
