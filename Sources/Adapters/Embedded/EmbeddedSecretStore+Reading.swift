import Logging
import PayPulsePorts

extension EmbeddedSecretStore {
    /// Reads the version holding `stage`.
    /// - Throws: ``StoreError/notFound`` when the secret or stage does not exist,
    ///   ``StoreError/scheduledForDeletion`` when the secret is deleted.
    public func getSecretValue(name: String, stage: SecretStage) async throws -> SecretValue {
        try await read { tables in
            _ = try tables.liveSecret(name)
            guard let id = try tables.holder(of: stage, in: name) else {
                throw StoreError.notFound.with(message: "secret \(name) has no version with stage \(stage)")
            }
            return try Self.value(id, of: name, in: tables)
        }
    }

    /// Reads version `versionID`.
    /// - Throws: ``StoreError/notFound`` when the secret or version does not exist,
    ///   ``StoreError/scheduledForDeletion`` when the secret is deleted.
    public func getSecretValue(name: String, versionID: SecretVersionID) async throws -> SecretValue {
        try await read { tables in
            _ = try tables.liveSecret(name)
            return try Self.value(versionID, of: name, in: tables)
        }
    }

    /// Describes the secret, deleted or not: tags, deletion date, the stages of each version.
    /// - Throws: ``StoreError/notFound`` when there is no such secret.
    public func describeSecret(name: String) async throws -> SecretDescription {
        try await read { tables in
            let record = try tables.existingSecret(name)
            return SecretDescription(
                name: record.name,
                tags: try tables.tags(of: name),
                deletedDate: record.deletedDate,
                versionStages: try tables.stagesByVersion(in: name)
            )
        }
    }

    private static func value(_ id: SecretVersionID, of name: String, in tables: SecretTables) throws -> SecretValue {
        guard let version = try tables.version(id, of: name) else {
            throw StoreError.notFound.with(message: "secret \(name) has no version \(id)")
        }
        return SecretValue(
            name: name, versionID: id, string: version.value,
            stages: try tables.stages(of: id, in: name), createdDate: version.createdDate
        )
    }
}
