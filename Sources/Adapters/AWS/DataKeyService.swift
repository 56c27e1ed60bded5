/// Where data keys come from and are unwrapped: KMS (``KMSClient``), or a wrapper around it
/// (a cache, a call counter in tests).
package protocol DataKeyService: Sendable {
    /// A new 256-bit data key under `keyID`, bound to `context`.
    /// - Throws: ``AWSError`` when KMS refuses, `TransportError` when it cannot be reached.
    func generateDataKey(keyID: String, context: [String: String]) async throws -> GeneratedDataKey

    /// The plaintext of a wrapped data key; `context` must equal the one it was wrapped with.
    /// - Throws: ``AWSError`` (`InvalidCiphertextException` for another context or an altered
    ///   blob), `TransportError` when KMS cannot be reached.
    func decrypt(ciphertextBlob: [UInt8], context: [String: String], keyID: String?) async throws -> DataKey
}
