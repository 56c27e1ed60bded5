import Crypto

/// Envelope encryption of one user's token set: AES-256-GCM under a KMS data key.
///
/// The user id binds the item twice: as the KMS encryption context of its data key (so KMS
/// will not unwrap it for another user) and as AES-GCM's authenticated data (so a data key
/// that did unwrap still cannot open an item moved between users).
package struct EnvelopeCipher: Sendable {
    private let keys: DataKeyCache

    /// Creates a cipher taking its data keys from `keys`.
    package init(keys: DataKeyCache) { self.keys = keys }

    /// Encrypts `plaintext` for `userID`.
    /// - Returns: the ciphertext with the wrapped data key and the KMS key id to store beside it.
    /// - Throws: ``EnvelopeError/kmsRefused(_:retryable:)`` when KMS refuses a data key;
    ///   `TransportError` when KMS cannot be reached.
    package func seal(_ plaintext: [UInt8], userID: String) async throws -> SealedEnvelope {
        let key: GeneratedDataKey
        do {
            key = try await keys.keyForSealing(userID: userID)
        } catch {
            throw EnvelopeError.mapping(error)
        }
        // A fresh random nonce per seal: one data key serves up to `maxUses` seals, far below
        // the 2^32 messages a random 96-bit nonce allows per key.
        let box = try AES.GCM.seal(plaintext, using: key.plaintext.key, authenticating: Self.associatedData(userID))
        // `combined` is nil only for nonces that are not 12 bytes; ours are.
        guard let combined = box.combined else { throw EnvelopeError.tampered }
        return SealedEnvelope(ciphertext: [UInt8](combined), wrappedKey: key.wrapped, keyID: key.keyID, keyCreatedAt: key.createdAt)
    }

    /// Decrypts an envelope sealed for `userID`.
    /// - Throws: ``EnvelopeError/wrongUser`` when KMS will not unwrap the data key for this
    ///   user; ``EnvelopeError/tampered`` when the ciphertext does not authenticate;
    ///   ``EnvelopeError/kmsRefused(_:retryable:)`` for other KMS refusals; `TransportError`
    ///   when KMS cannot be reached.
    package func open(_ envelope: SealedEnvelope, userID: String) async throws -> [UInt8] {
        let key: DataKey
        do {
            key = try await keys.unwrap(envelope.wrappedKey, userID: userID, keyID: envelope.keyID, createdAt: envelope.keyCreatedAt)
        } catch {
            throw EnvelopeError.mapping(error)
        }
        do {
            let box = try AES.GCM.SealedBox(combined: envelope.ciphertext)
            return [UInt8](try AES.GCM.open(box, using: key.key, authenticating: Self.associatedData(userID)))
        } catch {
            // swift-crypto's errors hold no data, but one message for every failed check says it all.
            throw EnvelopeError.tampered
        }
    }

    private static func associatedData(_ userID: String) -> [UInt8] { Array(userID.utf8) }
}
