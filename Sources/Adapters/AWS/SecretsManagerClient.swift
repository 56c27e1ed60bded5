#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulsePorts

/// Typed Secrets Manager operations over ``AWSJSONClient``. Errors are the raw
/// ``AWSError``s; ``AWSSecretStore`` maps them onto the port's ``StoreError``.
package struct SecretsManagerClient: Sendable {
    private let client: AWSJSONClient

    /// Creates a client speaking to Secrets Manager through `client`.
    package init(client: AWSJSONClient) { self.client = client }

    /// `CreateSecret`: IAM `secretsmanager:CreateSecret` on the secret.
    package static let createSecretOperation = AWSOperation(.secretsManager, "CreateSecret", on: .secret)

    /// `CreateSecret`.
    package func createSecret(name: String, value: String, tags: [String: String], clientRequestToken: String) async throws -> SecretVersionID {
        let input = SecretsManager.CreateSecretInput(
            Name: name, SecretString: value, ClientRequestToken: clientRequestToken, Tags: tags.isEmpty ? nil : .init(tags)
        )
        let output: SecretsManager.VersionOutput = try await client.call(Self.createSecretOperation, input)
        return SecretVersionID(output.VersionId ?? clientRequestToken)
    }

    /// `GetSecretValue`: IAM `secretsmanager:GetSecretValue` on the secret.
    package static let getSecretValueOperation = AWSOperation(.secretsManager, "GetSecretValue", on: .secret)

    /// `GetSecretValue` by stage or by version id. Always sends the stage it means:
    /// moto answers a stale version when `VersionStage` is left out.
    package func getSecretValue(name: String, versionID: SecretVersionID? = nil, stage: SecretStage? = nil) async throws -> SecretValue {
        let input = SecretsManager.GetSecretValueInput(
            SecretId: name, VersionId: versionID?.rawValue, VersionStage: stage?.rawValue ?? (versionID == nil ? SecretStage.current.rawValue : nil)
        )
        let output: SecretsManager.GetSecretValueOutput = try await client.call(Self.getSecretValueOperation, input)
        return SecretValue(
            name: output.Name ?? name, versionID: SecretVersionID(output.VersionId), string: output.SecretString ?? "",
            stages: (output.VersionStages ?? []).map(SecretStage.init), createdDate: output.CreatedDate.map(Date.init(timeIntervalSince1970:))
        )
    }

    /// `DescribeSecret`: IAM `secretsmanager:DescribeSecret` on the secret.
    package static let describeSecretOperation = AWSOperation(.secretsManager, "DescribeSecret", on: .secret)

    /// `DescribeSecret`: tags, deletion date and version stages, without the value.
    package func describeSecret(name: String) async throws -> SecretDescription {
        let output: SecretsManager.DescribeSecretOutput = try await client.call(Self.describeSecretOperation, SecretsManager.SecretIdInput(SecretId: name))
        var stages: [SecretVersionID: [SecretStage]] = [:]
        for (version, labels) in output.VersionIdsToStages ?? [:] {
            stages[SecretVersionID(version)] = labels.map(SecretStage.init)
        }
        return SecretDescription(
            name: output.Name, tags: (output.Tags ?? []).dictionary,
            deletedDate: output.DeletedDate.map(Date.init(timeIntervalSince1970:)), versionStages: stages
        )
    }

    /// `PutSecretValue`: IAM `secretsmanager:PutSecretValue` on the secret.
    package static let putSecretValueOperation = AWSOperation(.secretsManager, "PutSecretValue", on: .secret)

    /// `PutSecretValue` with an explicit client request token and stages.
    package func putSecretValue(name: String, value: String, clientRequestToken: String, stages: [SecretStage]) async throws -> SecretVersionID {
        let input = SecretsManager.PutSecretValueInput(
            SecretId: name, SecretString: value, ClientRequestToken: clientRequestToken, VersionStages: stages.map(\.rawValue)
        )
        let output: SecretsManager.VersionOutput = try await client.call(Self.putSecretValueOperation, input)
        return SecretVersionID(output.VersionId ?? clientRequestToken)
    }

    /// `UpdateSecretVersionStage`: IAM `secretsmanager:UpdateSecretVersionStage` on the secret.
    package static let updateSecretVersionStageOperation = AWSOperation(.secretsManager, "UpdateSecretVersionStage", on: .secret)

    /// `UpdateSecretVersionStage`.
    package func updateSecretVersionStage(name: String, stage: SecretStage, moveTo: SecretVersionID?, removeFrom: SecretVersionID?) async throws {
        let input = SecretsManager.UpdateSecretVersionStageInput(
            SecretId: name, VersionStage: stage.rawValue, MoveToVersionId: moveTo?.rawValue, RemoveFromVersionId: removeFrom?.rawValue
        )
        let _: SecretsManager.Empty = try await client.call(Self.updateSecretVersionStageOperation, input)
    }

    /// `ListSecrets`: IAM `secretsmanager:ListSecrets` on `*` (it takes no resource).
    package static let listSecretsOperation = AWSOperation(.secretsManager, "ListSecrets", on: .any)

    /// `ListSecrets` filtered by name prefix, and by a tag's value when given, one page.
    package func listSecrets(
        namePrefix: String, tagValue: String? = nil, includePlannedDeletion: Bool, maxResults: Int, nextToken: String?
    ) async throws -> SecretPage {
        // The service ANDs the filters.
        var filters: [SecretsManager.Filter] = [.init(Key: "name", Values: [namePrefix])]
        if let tagValue { filters.append(.init(Key: "tag-value", Values: [tagValue])) }
        let input = SecretsManager.ListSecretsInput(
            MaxResults: maxResults, NextToken: nextToken, Filters: filters, IncludePlannedDeletion: includePlannedDeletion, SortOrder: "asc"
        )
        let output: SecretsManager.ListSecretsOutput = try await client.call(Self.listSecretsOperation, input)
        let secrets = (output.SecretList ?? [])
            // The service's name and tag-value filters are prefix matches; keep them exact
            // and case-sensitive here.
            .filter { secret in
                secret.Name.hasPrefix(namePrefix) && (tagValue.map { value in (secret.Tags ?? []).contains { $0.Value == value } } ?? true)
            }
            .map {
                SecretSummary(
                    name: $0.Name, tags: ($0.Tags ?? []).dictionary, lastChangedDate: $0.LastChangedDate.map(Date.init(timeIntervalSince1970:)),
                    deletedDate: $0.DeletedDate.map(Date.init(timeIntervalSince1970:))
                )
            }
        let token = output.NextToken.flatMap { $0.isEmpty ? nil : $0 }
        return SecretPage(secrets: secrets, nextToken: token)
    }

    /// `DeleteSecret`: IAM `secretsmanager:DeleteSecret` on the secret.
    package static let deleteSecretOperation = AWSOperation(.secretsManager, "DeleteSecret", on: .secret)

    /// `DeleteSecret` with a recovery window.
    package func deleteSecret(name: String, recoveryWindowDays: Int) async throws -> Date? {
        let input = SecretsManager.DeleteSecretInput(SecretId: name, RecoveryWindowInDays: recoveryWindowDays)
        let output: SecretsManager.DeleteSecretOutput = try await client.call(Self.deleteSecretOperation, input)
        return output.DeletionDate.map(Date.init(timeIntervalSince1970:))
    }

    /// `RestoreSecret`: IAM `secretsmanager:RestoreSecret` on the secret.
    package static let restoreSecretOperation = AWSOperation(.secretsManager, "RestoreSecret", on: .secret)

    /// `RestoreSecret`.
    package func restoreSecret(name: String) async throws {
        let _: SecretsManager.Empty = try await client.call(Self.restoreSecretOperation, SecretsManager.SecretIdInput(SecretId: name))
    }

    /// `TagResource`: IAM `secretsmanager:TagResource` on the secret.
    package static let tagResourceOperation = AWSOperation(.secretsManager, "TagResource", on: .secret)

    /// `TagResource`.
    package func tagResource(name: String, tags: [String: String]) async throws {
        let _: SecretsManager.Empty = try await client.call(Self.tagResourceOperation, SecretsManager.TagResourceInput(SecretId: name, Tags: .init(tags)))
    }

    /// `UntagResource`: IAM `secretsmanager:UntagResource` on the secret.
    package static let untagResourceOperation = AWSOperation(.secretsManager, "UntagResource", on: .secret)

    /// `UntagResource`.
    package func untagResource(name: String, tagKeys: [String]) async throws {
        let _: SecretsManager.Empty = try await client.call(Self.untagResourceOperation, SecretsManager.UntagResourceInput(SecretId: name, TagKeys: tagKeys))
    }
}
