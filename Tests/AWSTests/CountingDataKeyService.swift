import PayPulseAWS
import Synchronization

/// A ``DataKeyService`` that forwards to another and counts the calls that reach it.
final class CountingDataKeyService: DataKeyService {
    private let inner: any DataKeyService
    private let counts = Mutex((generate: 0, decrypt: 0))

    init(_ inner: any DataKeyService) { self.inner = inner }

    var generateCalls: Int { counts.withLock { $0.generate } }
    var decryptCalls: Int { counts.withLock { $0.decrypt } }

    func generateDataKey(keyID: String, context: [String: String]) async throws -> GeneratedDataKey {
        counts.withLock { $0.generate += 1 }
        return try await inner.generateDataKey(keyID: keyID, context: context)
    }

    func decrypt(ciphertextBlob: [UInt8], context: [String: String], keyID: String?) async throws -> DataKey {
        counts.withLock { $0.decrypt += 1 }
        return try await inner.decrypt(ciphertextBlob: ciphertextBlob, context: context, keyID: keyID)
    }
}

/// A clock the test moves by hand.
final class ManualClock: Sendable {
    private let start = ContinuousClock.now
    private let offset = Mutex(Duration.zero)

    var now: ContinuousClock.Instant { start + offset.withLock { $0 } }

    func advance(by duration: Duration) { offset.withLock { $0 += duration } }
}

/// A key service that ignores the encryption context and always hands out one key: what a
/// misconfigured KMS would do, to show AES-GCM's own binding to the user.
struct ContextBlindDataKeyService: DataKeyService {
    let key: GeneratedDataKey

    func generateDataKey(keyID: String, context: [String: String]) async throws -> GeneratedDataKey { key }

    func decrypt(ciphertextBlob: [UInt8], context: [String: String], keyID: String?) async throws -> DataKey { key.plaintext }
}
