#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A sealed item: what is stored, all of it safe to store in plain attributes.
package struct SealedEnvelope: Sendable, Equatable, CustomStringConvertible {
    /// AES-256-GCM's combined form: the 12-byte nonce, the ciphertext, the 16-byte tag.
    package var ciphertext: [UInt8]
    /// The data key, wrapped by KMS under the user's encryption context.
    package var wrappedKey: [UInt8]
    /// The ARN of the KMS key that wrapped it.
    package var keyID: String
    /// When the data key was generated; `nil` when unknown, and then it seals nothing more.
    package var keyCreatedAt: Date?

    /// Creates an envelope (e.g. from stored attributes).
    package init(ciphertext: [UInt8], wrappedKey: [UInt8], keyID: String, keyCreatedAt: Date? = nil) {
        self.ciphertext = ciphertext
        self.wrappedKey = wrappedKey
        self.keyID = keyID
        self.keyCreatedAt = keyCreatedAt
    }

    /// Sizes only: ciphertext is not secret, but it has no business in a log line.
    package var description: String {
        "SealedEnvelope(ciphertext: \(ciphertext.count) bytes, wrappedKey: \(wrappedKey.count) bytes, keyID: \(keyID))"
    }
}
