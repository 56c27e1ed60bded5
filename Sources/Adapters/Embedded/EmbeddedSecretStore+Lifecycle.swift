#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PayPulsePorts

extension EmbeddedSecretStore {
    /// Schedules the secret for deletion `recoveryWindowDays` from now. Until then it can be
    /// described and restored but not read or written; afterwards it is gone for good.
    /// - Returns: the date the deletion becomes final.
    /// - Throws: ``StoreError/invalidRequest`` unless the window is 7–30 days,
    ///   ``StoreError/notFound``, ``StoreError/scheduledForDeletion`` when already deleted.
    public func deleteSecret(name: String, recoveryWindowDays: Int) async throws -> Date {
        try SecretRules.check(recoveryWindowDays: recoveryWindowDays)
        let deletionDate = try await write { tables in
            _ = try tables.liveSecret(name)
            let deletionDate = tables.now + Double(recoveryWindowDays) * 86_400
            try tables.setDeletion(of: name, deletedDate: tables.now, deletionDate: deletionDate)
            return deletionDate
        }
        logger.debug("secret scheduled for deletion", metadata: ["secret": "\(name)", "days": "\(recoveryWindowDays)"])
        return Self.date(deletionDate)
    }

    /// Cancels a scheduled deletion; a secret that is not deleted is left as it is.
    /// - Throws: ``StoreError/notFound`` when there is no such secret (or its window passed).
    public func restoreSecret(name: String) async throws {
        try await write { tables in
            _ = try tables.existingSecret(name)
            try tables.setDeletion(of: name, deletedDate: nil, deletionDate: nil)
        }
        logger.debug("secret restored", metadata: ["secret": "\(name)"])
    }

    /// Adds or overwrites tags.
    /// - Throws: ``StoreError/notFound``, ``StoreError/scheduledForDeletion``,
    ///   ``StoreError/invalidRequest`` for a bad tag or more than 50 tags in all.
    public func tagResource(name: String, tags: [String: String]) async throws {
        try SecretRules.check(tags: tags)
        try await write { tables in
            _ = try tables.liveSecret(name)
            try tables.setTags(tags, on: name)
        }
        logger.debug("secret tagged", metadata: ["secret": "\(name)", "keys": "\(tags.keys.sorted())"])
    }

    /// Removes tags by key; absent keys are ignored.
    /// - Throws: ``StoreError/notFound``, ``StoreError/scheduledForDeletion``.
    public func untagResource(name: String, tagKeys: [String]) async throws {
        try await write { tables in
            _ = try tables.liveSecret(name)
            try tables.removeTags(tagKeys, from: name)
        }
        logger.debug("secret untagged", metadata: ["secret": "\(name)", "keys": "\(tagKeys)"])
    }
}
