import PayPulseCoding

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

        init(json value: JSONValue) throws(JSONTypeMismatch) {
            guard case .object(let fields) = value, let name = try fields.string("Name") else { throw JSONTypeMismatch(key: "SecretList") }
            Name = name
            Tags = try Tag.tags(fields)
            LastChangedDate = try fields.double("LastChangedDate")
            DeletedDate = try fields.double("DeletedDate")
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
