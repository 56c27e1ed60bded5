import Foundation
import PayPulseAWS
import PayPulseTestSupport
import Testing

/// Envelope encryption of token sets with KMS data keys from moto_server.
@Suite("Envelope encryption against moto_server KMS")
struct EnvelopeCipherTests {
    private static let tokens = Array(#"{"access_token":"ya29.envelope-access-token","refresh_token":"1//envelope-refresh-token"}"#.utf8)

    /// A cipher over its own cache, with a counter of the calls that reach KMS.
    private func cipher(
        keyID: String? = nil, maxAge: Duration = .seconds(300), maxUses: Int = 1_000, clock: ManualClock = ManualClock()
    ) async throws -> (EnvelopeCipher, DataKeyCache, CountingDataKeyService) {
        let kms = try await KMSFixture.client()
        let resolvedKeyID: String
        if let keyID { resolvedKeyID = keyID } else { resolvedKeyID = try await kms.createKey() }
        let counting = CountingDataKeyService(kms)
        let cache = DataKeyCache(service: counting, keyID: resolvedKeyID, maxAge: maxAge, maxUses: maxUses, now: { clock.now })
        return (EnvelopeCipher(keys: cache), cache, counting)
    }

    @Test("seal then open round-trips; a fresh process unwraps the key with KMS Decrypt")
    func roundTrip() async throws {
        let (writer, cache, counting) = try await cipher()
        let sealed = try await writer.seal(Self.tokens, userID: "user-a")
        #expect(sealed.ciphertext.count == Self.tokens.count + 12 + 16)
        #expect(!sealed.ciphertext.contains(subsequence: Array("ya29".utf8)))
        #expect(try await writer.open(sealed, userID: "user-a") == Self.tokens)
        // The writer's own key served the read back: no Decrypt.
        #expect(counting.decryptCalls == 0)

        let reader = EnvelopeCipher(keys: DataKeyCache(service: counting, keyID: cache.keyID))
        #expect(try await reader.open(sealed, userID: "user-a") == Self.tokens)
        #expect(counting.decryptCalls == 1)
        #expect(try await writer.seal([], userID: "user-a").ciphertext.count == 28)
    }

    @Test("a flipped byte anywhere in nonce, ciphertext or tag, or a truncated ciphertext, is .tampered")
    func tampered() async throws {
        let (envelope, _, _) = try await cipher()
        let sealed = try await envelope.seal(Self.tokens, userID: "user-a")
        for index in [0, 11, 12, sealed.ciphertext.count / 2, sealed.ciphertext.count - 1] {
            var altered = sealed
            altered.ciphertext[index] ^= 0x20
            await #expect(throws: EnvelopeError.tampered, "byte \(index)") { try await envelope.open(altered, userID: "user-a") }
        }
        var truncated = sealed
        truncated.ciphertext = Array(sealed.ciphertext.prefix(20))
        await #expect(throws: EnvelopeError.tampered) { try await envelope.open(truncated, userID: "user-a") }
    }

    @Test("an item sealed for user A does not open as user B, with the cache warm or cold")
    func wrongUser() async throws {
        let (envelope, cache, counting) = try await cipher()
        let sealed = try await envelope.seal(Self.tokens, userID: "user-a")
        await #expect(throws: EnvelopeError.wrongUser) { try await envelope.open(sealed, userID: "user-b") }
        let cold = EnvelopeCipher(keys: DataKeyCache(service: counting, keyID: cache.keyID))
        await #expect(throws: EnvelopeError.wrongUser) { try await cold.open(sealed, userID: "user-b") }

        // A's ciphertext beside B's own wrapped key: KMS unwraps B's key, AES-GCM still refuses
        // (the key differs, and the user id is authenticated data).
        let forB = try await envelope.seal(Self.tokens, userID: "user-b")
        let moved = SealedEnvelope(ciphertext: sealed.ciphertext, wrappedKey: forB.wrappedKey, keyID: forB.keyID)
        await #expect(throws: EnvelopeError.tampered) { try await envelope.open(moved, userID: "user-b") }
    }

    @Test("the user id is AES-GCM authenticated data: even if KMS ignored the context, B cannot open A's item")
    func userBoundByAssociatedData() async throws {
        let kms = try await KMSFixture.client()
        let key = try await kms.generateDataKey(keyID: try await kms.createKey(), context: [:])
        let blind = EnvelopeCipher(keys: DataKeyCache(service: ContextBlindDataKeyService(key: key), keyID: "unused"))
        let sealed = try await blind.seal(Self.tokens, userID: "user-a")
        #expect(try await blind.open(sealed, userID: "user-a") == Self.tokens)
        await #expect(throws: EnvelopeError.tampered) { try await blind.open(sealed, userID: "user-b") }
    }

    @Test("a data key serves up to maxUses seals for one user, then KMS is asked again; users never share one")
    func reuseBoundedByUses() async throws {
        let (envelope, cache, counting) = try await cipher(maxUses: 3)
        var sealed: [SealedEnvelope] = []
        for _ in 0..<7 { sealed.append(try await envelope.seal(Self.tokens, userID: "user-a")) }
        #expect(counting.generateCalls == 3)
        #expect(await cache.generateCalls == 3)
        #expect(Set(sealed.map(\.wrappedKey)).count == 3)
        #expect(Set(sealed.map(\.ciphertext)).count == 7, "a fresh nonce per seal")

        _ = try await envelope.seal(Self.tokens, userID: "user-b")
        #expect(counting.generateCalls == 4)

        // Opening: one Decrypt per wrapped key, reused up to the same bound.
        let reader = DataKeyCache(service: counting, keyID: cache.keyID, maxUses: 2)
        let readerCipher = EnvelopeCipher(keys: reader)
        for item in sealed.prefix(3) { #expect(try await readerCipher.open(item, userID: "user-a") == Self.tokens) }
        #expect(await reader.decryptCalls == 2, "items 0-2 share a key: 2 uses, then a second Decrypt")
    }

    @Test("a key unwrapped to read a user's item seals that user's next item: read then write is one KMS call")
    func readThenWriteIsOneKMSCall() async throws {
        let (writer, cache, _) = try await cipher()
        let stored = try await writer.seal(Self.tokens, userID: "user-a")

        // Another process reads the item, then writes a new one for the same user.
        let counting = CountingDataKeyService(try await KMSFixture.client())
        let process = DataKeyCache(service: counting, keyID: cache.keyID)
        let cipher = EnvelopeCipher(keys: process)
        #expect(try await cipher.open(stored, userID: "user-a") == Self.tokens)
        let rewritten = try await cipher.seal(Self.tokens + [0x20], userID: "user-a")
        #expect(counting.decryptCalls == 1 && counting.generateCalls == 0)
        #expect(rewritten.wrappedKey == stored.wrappedKey && rewritten.ciphertext != stored.ciphertext)

        // Another user's item still gets its own key, and the rewritten item opens elsewhere.
        _ = try await cipher.seal(Self.tokens, userID: "user-b")
        #expect(counting.generateCalls == 1)
        let (fresh, _, _) = try await self.cipher(keyID: cache.keyID)
        #expect(try await fresh.open(rewritten, userID: "user-a") == Self.tokens + [0x20])
    }

    @Test("a data key is not reused past maxAge")
    func reuseBoundedByAge() async throws {
        let clock = ManualClock()
        let (envelope, _, counting) = try await cipher(maxAge: .seconds(60), clock: clock)
        _ = try await envelope.seal(Self.tokens, userID: "user-a")
        clock.advance(by: .seconds(59))
        _ = try await envelope.seal(Self.tokens, userID: "user-a")
        #expect(counting.generateCalls == 1)
        clock.advance(by: .seconds(1))
        _ = try await envelope.seal(Self.tokens, userID: "user-a")
        #expect(counting.generateCalls == 2)
    }

    @Test("a KMS refusal is .kmsRefused with its type; no error or envelope description holds token, key or ciphertext bytes")
    func errorsHoldNoSecrets() async throws {
        let (missingKey, _, _) = try await cipher(keyID: UUID().uuidString.lowercased())
        let refusal = await #expect(throws: EnvelopeError.self) { try await missingKey.seal(Self.tokens, userID: "user-a") }
        #expect(refusal == .kmsRefused("NotFoundException"))
        #expect(refusal?.kmsErrorType == "NotFoundException")

        let (envelope, _, _) = try await cipher()
        let sealed = try await envelope.seal(Self.tokens, userID: "user-a")
        var altered = sealed
        altered.ciphertext[15] ^= 1
        var errors: [any Error] = refusal.map { [$0] } ?? []
        for attempt in [(altered, "user-a"), (sealed, "user-b")] {
            do { _ = try await envelope.open(attempt.0, userID: attempt.1) } catch { errors.append(error) }
        }
        #expect(errors.count == 3)

        let secrets = [
            "ya29.envelope-access-token", "1//envelope-refresh-token", Data(sealed.ciphertext).base64EncodedString(),
            Data(sealed.wrappedKey).base64EncodedString(), "\(sealed.ciphertext.prefix(8))",
        ]
        let texts = errors.flatMap { [String(describing: $0), String(reflecting: $0), "\($0.localizedDescription)"] } + [String(describing: sealed)]
        for text in texts {
            for secret in secrets { #expect(!text.contains(secret), "\(text)") }
        }
    }
}

extension Array where Element: Equatable {
    func contains(subsequence: [Element]) -> Bool {
        guard !subsequence.isEmpty, subsequence.count <= count else { return subsequence.isEmpty }
        return (0...(count - subsequence.count)).contains { Array(self[$0..<($0 + subsequence.count)]) == subsequence }
    }
}
