import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The HS256 (HMAC-SHA256) key that signs and verifies PayPulse access tokens.
///
/// The MAC is swift-crypto's; this only frames it as JWS does (RFC 7515 §5: the MAC of the
/// ASCII `header.payload`). A JWT library would bring X.509, ASN.1 and RSA code into every
/// function for one HMAC, and its key collection cost a quarter of a cold start
/// (docs/performance.md).
struct HS256Key: Sendable {
    private let key: SymmetricKey

    /// - Parameter bytes: The key; its length is checked by ``AuthSettings``.
    init(_ bytes: [UInt8]) {
        key = SymmetricKey(data: bytes)
    }

    /// The signature of `signingInput`, base64url without padding.
    func sign(_ signingInput: String) -> String {
        Base64URL.encode(HMAC<SHA256>.authenticationCode(for: Data(signingInput.utf8), using: key))
    }

    /// Whether `signature` is the MAC of `signingInput`, compared in constant time.
    func isValid(signature: Data, for signingInput: Substring) -> Bool {
        HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: Data(signingInput.utf8), using: key)
    }
}
