#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseCoding
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
                    deletedDate: $0.DeletedDate.map(Date.init(timeIntervalSince1970:)), currentVersion: $0.CurrentVersion.map(SecretVersionID.init)
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

/// Request and response shapes of the Secrets Manager operations we call, named as the API
/// names them, each with its one encoding (see ``AWSJSONInput``): a request writes its JSON,
/// an answer reads its members. Dates arrive as epoch seconds (AWS JSON protocol timestamps).
enum SecretsManager {
    /// A tag as the API spells it; requests write it and answers carry it.
    struct Tag: Sendable, Equatable {
        var Key: String
        var Value: String

        var json: JSONValue { .object(["Key": .string(Key), "Value": .string(Value)]) }

        init(Key: String, Value: String) {
            self.Key = Key
            self.Value = Value
        }

        init(json value: JSONValue) throws(JSONTypeMismatch) {
            guard case .object(let fields) = value, let key = try fields.string("Key"), let tagValue = try fields.string("Value") else {
                throw JSONTypeMismatch(key: "Tags")
            }
            self.init(Key: key, Value: tagValue)
        }

        /// The `Tags` member of an answer.
        static func tags(_ fields: [String: JSONValue]) throws(JSONTypeMismatch) -> [Self]? {
            guard let items = try fields.array("Tags") else { return nil }
            var tags: [Self] = []
            tags.reserveCapacity(items.count)
            for item in items { tags.append(try Self(json: item)) }
            return tags
        }
    }

    struct CreateSecretInput: AWSJSONInput {
        var Name: String
        var SecretString: String
        var ClientRequestToken: String
        var Tags: [Tag]?

        var json: JSONValue {
            .members(["Name": .string(Name), "SecretString": .string(SecretString), "ClientRequestToken": .string(ClientRequestToken),
                      "Tags": Tags.map { .array($0.map(\.json)) }])
        }
    }

    /// The answer of `CreateSecret` and `PutSecretValue`.
    struct VersionOutput: AWSJSONOutput {
        var Name: String?
        var VersionId: String?

        init(json fields: [String: JSONValue]) throws(JSONTypeMismatch) {
            Name = try fields.string("Name")
            VersionId = try fields.string("VersionId")
        }
    }

    struct GetSecretValueInput: AWSJSONInput {
        var SecretId: String
        var VersionId: String?
        var VersionStage: String?

        var json: JSONValue {
            .members(["SecretId": .string(SecretId), "VersionId": .stringIfPresent(VersionId), "VersionStage": .stringIfPresent(VersionStage)])
        }
    }

    struct GetSecretValueOutput: AWSJSONOutput {
        var Name: String?
        var VersionId: String
        var SecretString: String?
        var VersionStages: [String]?
        var CreatedDate: Double?

        init(json fields: [String: JSONValue]) throws(JSONTypeMismatch) {
            guard let versionID = try fields.string("VersionId") else { throw JSONTypeMismatch(key: "VersionId") }
            Name = try fields.string("Name")
            VersionId = versionID
            SecretString = try fields.string("SecretString")
            VersionStages = try fields.strings("VersionStages")
            CreatedDate = try fields.double("CreatedDate")
        }
    }

    /// The input of the operations that name only the secret.
    struct SecretIdInput: AWSJSONInput {
        var SecretId: String

        var json: JSONValue { .object(["SecretId": .string(SecretId)]) }
    }

    struct DescribeSecretOutput: AWSJSONOutput {
        var Name: String
        var Tags: [Tag]?
        var DeletedDate: Double?
        var VersionIdsToStages: [String: [String]]?

        init(json fields: [String: JSONValue]) throws(JSONTypeMismatch) {
            guard let name = try fields.string("Name") else { throw JSONTypeMismatch(key: "Name") }
            Name = name
            Tags = try Tag.tags(fields)
            DeletedDate = try fields.double("DeletedDate")
            if let map = try fields.object("VersionIdsToStages") {
                var stages: [String: [String]] = [:]
                for key in map.keys {
                    guard let labels = try map.strings(key) else { throw JSONTypeMismatch(key: "VersionIdsToStages") }
                    stages[key] = labels
                }
                VersionIdsToStages = stages
            }
        }
    }

    struct PutSecretValueInput: AWSJSONInput {
        var SecretId: String
        var SecretString: String
        var ClientRequestToken: String
        var VersionStages: [String]

        var json: JSONValue {
            .object(["SecretId": .string(SecretId), "SecretString": .string(SecretString), "ClientRequestToken": .string(ClientRequestToken),
                     "VersionStages": .strings(VersionStages)])
        }
    }

    struct UpdateSecretVersionStageInput: AWSJSONInput {
        var SecretId: String
        var VersionStage: String
        var MoveToVersionId: String?
        var RemoveFromVersionId: String?

        var json: JSONValue {
            .members(["SecretId": .string(SecretId), "VersionStage": .string(VersionStage), "MoveToVersionId": .stringIfPresent(MoveToVersionId),
                      "RemoveFromVersionId": .stringIfPresent(RemoveFromVersionId)])
        }
    }

    struct Filter {
        var Key: String
        var Values: [String]

        var json: JSONValue { .object(["Key": .string(Key), "Values": .strings(Values)]) }
    }

    struct ListSecretsInput: AWSJSONInput {
        var MaxResults: Int
        var NextToken: String?
        var Filters: [Filter]
        var IncludePlannedDeletion: Bool
        var SortOrder: String

        var json: JSONValue {
            .members(["MaxResults": .integer(Int64(MaxResults)), "NextToken": .stringIfPresent(NextToken), "Filters": .array(Filters.map(\.json)),
                      "IncludePlannedDeletion": .bool(IncludePlannedDeletion), "SortOrder": .string(SortOrder)])
        }
    }

    struct ListedSecret {
        var Name: String
        var Tags: [Tag]?
        var LastChangedDate: Double?
        var DeletedDate: Double?
        /// The version holding `AWSCURRENT`, from `SecretVersionsToStages`.
        var CurrentVersion: String?

        init(json value: JSONValue) throws(JSONTypeMismatch) {
            guard case .object(let fields) = value, let name = try fields.string("Name") else { throw JSONTypeMismatch(key: "SecretList") }
            Name = name
            Tags = try Tag.tags(fields)
            LastChangedDate = try fields.double("LastChangedDate")
            DeletedDate = try fields.double("DeletedDate")
            if let map = try fields.object("SecretVersionsToStages") {
                for key in map.keys {
                    guard let labels = try map.strings(key) else { throw JSONTypeMismatch(key: "SecretVersionsToStages") }
                    if labels.contains(SecretStage.current.rawValue) { CurrentVersion = key }
                }
            }
        }
    }

    struct ListSecretsOutput: AWSJSONOutput {
        var SecretList: [ListedSecret]?
        var NextToken: String?

        init(json fields: [String: JSONValue]) throws(JSONTypeMismatch) {
            if let items = try fields.array("SecretList") {
                var secrets: [ListedSecret] = []
                secrets.reserveCapacity(items.count)
                for item in items { secrets.append(try ListedSecret(json: item)) }
                SecretList = secrets
            }
            NextToken = try fields.string("NextToken")
        }
    }

    struct DeleteSecretInput: AWSJSONInput {
        var SecretId: String
        var RecoveryWindowInDays: Int

        var json: JSONValue { .object(["SecretId": .string(SecretId), "RecoveryWindowInDays": .integer(Int64(RecoveryWindowInDays))]) }
    }

    struct DeleteSecretOutput: AWSJSONOutput {
        var DeletionDate: Double?

        init(json fields: [String: JSONValue]) throws(JSONTypeMismatch) {
            DeletionDate = try fields.double("DeletionDate")
        }
    }

    struct TagResourceInput: AWSJSONInput {
        var SecretId: String
        var Tags: [Tag]

        var json: JSONValue { .object(["SecretId": .string(SecretId), "Tags": .array(Tags.map(\.json))]) }
    }

    struct UntagResourceInput: AWSJSONInput {
        var SecretId: String
        var TagKeys: [String]

        var json: JSONValue { .object(["SecretId": .string(SecretId), "TagKeys": .strings(TagKeys)]) }
    }

    /// An answer whose members we do not read.
    struct Empty: AWSJSONOutput {
        init(json fields: [String: JSONValue]) {}
    }
}

extension Array where Element == SecretsManager.Tag {
    var dictionary: [String: String] {
        Dictionary(map { ($0.Key, $0.Value) }, uniquingKeysWith: { _, last in last })
    }

    init(_ tags: [String: String]) {
        self = tags.sorted { $0.key < $1.key }.map { SecretsManager.Tag(Key: $0.key, Value: $0.value) }
    }
}
