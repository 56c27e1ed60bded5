import Logging
import PayPulsePorts

extension EmbeddedSecretStore {
    /// Creates a secret whose first version, `clientRequestToken`, holds `AWSCURRENT`.
    /// - Throws: ``StoreError/alreadyExists`` when the name is taken (also by a secret
    ///   scheduled for deletion), ``StoreError/invalidRequest`` for a bad name, value,
    ///   token or tag.
    public func createSecret(
        name: String, value: String, tags: [String: String], clientRequestToken: String
    ) async throws -> SecretVersionID {
        try SecretRules.check(name: name)
        try SecretRules.check(value: value)
        try SecretRules.check(clientRequestToken: clientRequestToken)
        try SecretRules.check(tags: tags)
        let id = SecretVersionID(clientRequestToken)
        try await write { tables in
            try tables.insertSecret(name)
            _ = try tables.insertVersion(id, value: value, of: name)
            try tables.attach(.current, to: id, in: name)
            try tables.setTags(tags, on: name)
        }
        logger.debug("secret created", metadata: ["secret": "\(name)", "version": "\(id)"])
        return id
    }

    /// Stores version `clientRequestToken` with `stages`, moving each label from the version
    /// that held it. A retry with the same token and value changes nothing.
    /// - Throws: ``StoreError/notFound``, ``StoreError/scheduledForDeletion``,
    ///   ``StoreError/alreadyExists`` when the token names a version with another value,
    ///   ``StoreError/invalidRequest`` for a bad value, token or stage.
    public func putSecretValue(
        name: String, value: String, clientRequestToken: String, stages: [SecretStage]
    ) async throws -> SecretVersionID {
        try SecretRules.check(value: value)
        try SecretRules.check(clientRequestToken: clientRequestToken)
        for stage in stages { try SecretRules.check(stage: stage) }
        let id = SecretVersionID(clientRequestToken)
        let inserted = try await write { tables in
            _ = try tables.liveSecret(name)
            guard try tables.insertVersion(id, value: value, of: name) else { return false }
            for stage in stages { try tables.attach(stage, to: id, in: name) }
            try tables.prune(name)
            return true
        }
        logger.debug(
            inserted ? "secret version stored" : "secret version already stored",
            metadata: ["secret": "\(name)", "version": "\(id)", "stages": "\(stages)"]
        )
        return id
    }

    /// Stores `value` as version `clientRequestToken` and moves `AWSCURRENT` to it, in one
    /// transaction, only if `expected` still holds `AWSCURRENT`. A retry of a swap that
    /// already happened (same token, same value, now current) returns the same version.
    /// - Throws: ``StoreError/conflict`` when `expected` no longer holds `AWSCURRENT` (then
    ///   nothing is written), ``StoreError/notFound``, ``StoreError/scheduledForDeletion``,
    ///   ``StoreError/alreadyExists`` when the token names a version with another value,
    ///   ``StoreError/invalidRequest`` for a bad value or token.
    public func replaceCurrent(
        name: String, expected: SecretVersionID, value: String, clientRequestToken: String
    ) async throws -> SecretVersionID {
        try SecretRules.check(value: value)
        try SecretRules.check(clientRequestToken: clientRequestToken)
        let id = SecretVersionID(clientRequestToken)
        do {
            try await write { tables in
                _ = try tables.liveSecret(name)
                let current = try tables.holder(of: .current, in: name)
                if let existing = try tables.version(id, of: name) {
                    guard existing.value == value else {
                        throw StoreError.alreadyExists.with(
                            message: "version \(id) of \(name) already exists with another value")
                    }
                    if current == id { return }
                }
                guard current == expected else {
                    throw StoreError.conflict.with(message: "AWSCURRENT of \(name) is no longer on \(expected)")
                }
                _ = try tables.insertVersion(id, value: value, of: name)
                try tables.attach(.current, to: id, in: name)
                try tables.prune(name)
            }
        } catch let error as StoreError where error == .conflict {
            logger.debug("compare-and-swap lost", metadata: ["secret": "\(name)", "expected": "\(expected)"])
            throw error
        }
        logger.debug(
            "compare-and-swap won", metadata: ["secret": "\(name)", "from": "\(expected)", "version": "\(id)"])
        return id
    }
}
