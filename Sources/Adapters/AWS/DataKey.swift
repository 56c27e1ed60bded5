#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Crypto

/// A plaintext data key from KMS. Its bytes stay inside (in swift-crypto's `SymmetricKey`,
/// zeroed when freed) and never print: descriptions, debug output and reflection name only
/// its size, so a log line or an error that captures one leaks nothing.
package struct DataKey: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    let key: SymmetricKey

    init(_ bytes: some ContiguousBytes) { key = SymmetricKey(data: bytes) }

    /// The key's length in bytes (32 for `AES_256`).
    package var byteCount: Int { key.bitCount / 8 }

    package var description: String { "DataKey(\(byteCount) bytes, redacted)" }
    package var debugDescription: String { description }
    package var customMirror: Mirror { Mirror(self, children: [:]) }

    /// Constant-time comparison (swift-crypto's `SymmetricKey` equality).
    package static func == (lhs: DataKey, rhs: DataKey) -> Bool { lhs.key == rhs.key }
}

/// A data key as `GenerateDataKey` returns it: the plaintext to encrypt with now, the same
/// key wrapped under the KMS key (to store beside the ciphertext), and the KMS key's ARN;
/// with the date it was generated once a ``DataKeyCache`` has stamped it.
package struct GeneratedDataKey: Sendable, Equatable {
    /// The plaintext key.
    package let plaintext: DataKey
    /// The key encrypted under the KMS key with the request's encryption context.
    package let wrapped: [UInt8]
    /// The ARN of the KMS key that wrapped it.
    package let keyID: String
    /// When KMS generated it, to the second: what bounds its reuse across processes.
    package let createdAt: Date?

    /// Creates a data key (for ``DataKeyService`` implementations, which leave `createdAt`
    /// to the cache).
    package init(plaintext: DataKey, wrapped: [UInt8], keyID: String, createdAt: Date? = nil) {
        self.plaintext = plaintext
        self.wrapped = wrapped
        self.keyID = keyID
        self.createdAt = createdAt
    }
}
