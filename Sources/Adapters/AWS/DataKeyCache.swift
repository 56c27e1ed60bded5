#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Data keys reused within bounds, so that sealing and opening do not call KMS every time.
///
/// A key generated for sealing is reused for the same user for at most `maxAge` and
/// `maxUses` seals; an unwrapped key is kept by (user, wrapped blob) under the same bounds,
/// and, when no sealing key is held for that user, also seals their next item: a
/// read-then-write (a refresh, a store over a stored set) costs one KMS call, not two.
/// Only while that key is younger than `maxKeyLifetime` and was wrapped by the configured
/// KMS key: an item re-sealed in process after process would otherwise keep one data key
/// forever, and a change of `PAYPULSE_KMS_KEY_ID` would never reach it.
/// Every cache key includes the user id because the encryption context does: a data key
/// bound to one user must never seal or open another's item. Two concurrent misses for the
/// same user may both call KMS; that costs a call, never correctness.
package actor DataKeyCache {
    private struct Entry<Value: Sendable>: Sendable {
        var value: Value
        var expires: ContinuousClock.Instant
        var usesLeft: Int
    }

    private struct OpeningKey: Hashable {
        var userID: String
        var wrapped: [UInt8]
    }

    private let service: any DataKeyService
    /// The KMS key new data keys are generated under.
    package nonisolated let keyID: String
    private let maxAge: Duration
    private let maxUses: Int
    private let maxEntries: Int
    private let maxKeyLifetime: TimeInterval
    private let now: @Sendable () -> ContinuousClock.Instant
    private let wallClock: @Sendable () -> Date
    private var sealing: [String: Entry<GeneratedDataKey>] = [:]
    private var opening: [OpeningKey: Entry<DataKey>] = [:]

    /// `GenerateDataKey` calls made so far.
    package private(set) var generateCalls = 0
    /// `Decrypt` calls made so far.
    package private(set) var decryptCalls = 0

    /// Creates a cache.
    /// - Parameters:
    ///   - service: KMS, or a wrapper around it.
    ///   - keyID: the KMS key id, ARN or alias to generate data keys under.
    ///   - maxAge: how long a data key is reused after KMS returned it.
    ///   - maxUses: how many seals (or opens) one data key serves; `1` turns reuse off.
    ///   - maxEntries: the most keys held per direction; past it expired and then the
    ///     soonest-expiring keys are dropped.
    ///   - maxKeyLifetime: how old (since KMS generated it) an unwrapped key may be and
    ///     still seal a new item; 30 days by default.
    ///   - now: the clock, injectable for tests.
    ///   - wallClock: the date data keys are stamped with and aged by, injectable for tests.
    package init(
        service: any DataKeyService, keyID: String, maxAge: Duration = .seconds(300), maxUses: Int = 1_000,
        maxEntries: Int = 10_000, maxKeyLifetime: TimeInterval = 30 * 86_400,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }, wallClock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.service = service
        self.keyID = keyID
        self.maxAge = maxAge
        self.maxUses = maxUses
        self.maxEntries = maxEntries
        self.maxKeyLifetime = maxKeyLifetime
        self.now = now
        self.wallClock = wallClock
    }

    /// The KMS encryption context of a user's data keys.
    package static func encryptionContext(userID: String) -> [String: String] { ["user_id": userID] }

    /// A data key to seal one item of `userID`'s with: a cached one while it is within its
    /// bounds, else a new one from KMS.
    /// - Throws: what the ``DataKeyService`` throws.
    package func keyForSealing(userID: String) async throws -> GeneratedDataKey {
        if let key = take(&sealing, userID) { return key }
        generateCalls += 1
        let generated = try await service.generateDataKey(keyID: keyID, context: Self.encryptionContext(userID: userID))
        let key = GeneratedDataKey(
            plaintext: generated.plaintext, wrapped: generated.wrapped, keyID: generated.keyID,
            createdAt: Date(timeIntervalSince1970: wallClock().timeIntervalSince1970.rounded(.down))
        )
        // The first seal is one use; a read of the item just written then needs no Decrypt.
        put(key, for: userID, in: &sealing)
        put(key.plaintext, for: OpeningKey(userID: userID, wrapped: key.wrapped), in: &opening)
        return key
    }

    /// The plaintext of `wrapped`, a data key sealed for `userID`: cached, else from KMS
    /// `Decrypt` under `userID`'s encryption context.
    /// - Parameters:
    ///   - keyID: the KMS key that wrapped it; KMS refuses a blob wrapped under another.
    ///   - createdAt: when KMS generated it, as stored beside it.
    /// - Throws: what the ``DataKeyService`` throws.
    package func unwrap(_ wrapped: [UInt8], userID: String, keyID: String? = nil, createdAt: Date? = nil) async throws -> DataKey {
        let cacheKey = OpeningKey(userID: userID, wrapped: wrapped)
        if let key = take(&opening, cacheKey) { return key }
        decryptCalls += 1
        let key = try await service.decrypt(ciphertextBlob: wrapped, context: Self.encryptionContext(userID: userID), keyID: keyID)
        put(key, for: cacheKey, in: &opening)
        // The same user's context wrapped it, so it may seal their next item too (within the
        // same bounds): only when the configured KMS key wrapped it and it is young enough.
        if let keyID, let createdAt, isConfiguredKey(keyID), wallClock().timeIntervalSince(createdAt) < maxKeyLifetime, sealing[userID] == nil {
            put(GeneratedDataKey(plaintext: key, wrapped: wrapped, keyID: keyID, createdAt: createdAt), for: userID, in: &sealing)
        }
        return key
    }

    /// Whether `wrappingKey` (the ARN KMS reports) is the configured ``keyID``, given as that
    /// ARN or as the bare key id. An alias cannot be told apart here: its items are then
    /// always sealed under a new data key (one KMS call more, never a wrong key).
    private func isConfiguredKey(_ wrappingKey: String) -> Bool {
        wrappingKey == keyID || wrappingKey.hasSuffix(":key/" + keyID)
    }

    /// Drops every cached key (e.g. after the KMS key was rotated or disabled).
    package func removeAll() {
        sealing.removeAll()
        opening.removeAll()
    }

    /// A cached value within its bounds, counting this use; an expired or used-up one is dropped.
    private func take<Key: Hashable, Value>(_ entries: inout [Key: Entry<Value>], _ key: Key) -> Value? {
        guard var entry = entries[key] else { return nil }
        guard now() < entry.expires, entry.usesLeft > 0 else {
            entries[key] = nil
            return nil
        }
        entry.usesLeft -= 1
        entries[key] = entry.usesLeft > 0 ? entry : nil
        return entry.value
    }

    private func put<Key: Hashable, Value>(_ value: Value, for key: Key, in entries: inout [Key: Entry<Value>]) {
        guard maxUses > 1, maxAge > .zero, maxEntries > 0 else { return }
        let instant = now()
        if entries[key] == nil, entries.count >= maxEntries {
            entries = entries.filter { instant < $0.value.expires }
            if entries.count >= maxEntries, let soonest = entries.min(by: { $0.value.expires < $1.value.expires }) {
                entries[soonest.key] = nil
            }
        }
        entries[key] = Entry(value: value, expires: instant + maxAge, usesLeft: maxUses - 1)
    }
}
