#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Request and response shapes of the Secrets Manager operations we call, named as the
/// API names them. Dates arrive as epoch seconds (AWS JSON protocol timestamps).
enum SecretsManager {
    /// A tag as the API spells it.
    struct Tag: Codable, Sendable, Equatable {
        var Key: String
        var Value: String
    }

    struct CreateSecretInput: Encodable {
        var Name: String
        var SecretString: String
        var ClientRequestToken: String
        var Tags: [Tag]?
    }

    struct VersionOutput: Decodable {
        var Name: String?
        var VersionId: String?
    }

    struct GetSecretValueInput: Encodable {
        var SecretId: String
        var VersionId: String?
        var VersionStage: String?
    }

    struct GetSecretValueOutput: Decodable {
        var Name: String?
        var VersionId: String
        var SecretString: String?
        var VersionStages: [String]?
        var CreatedDate: Double?
    }

    struct SecretIdInput: Encodable {
        var SecretId: String
    }

    struct DescribeSecretOutput: Decodable {
        var Name: String
        var Tags: [Tag]?
        var DeletedDate: Double?
        var VersionIdsToStages: [String: [String]]?
    }

    struct PutSecretValueInput: Encodable {
        var SecretId: String
        var SecretString: String
        var ClientRequestToken: String
        var VersionStages: [String]
    }

    struct UpdateSecretVersionStageInput: Encodable {
        var SecretId: String
        var VersionStage: String
        var MoveToVersionId: String?
        var RemoveFromVersionId: String?
    }

    struct Filter: Encodable {
        var Key: String
        var Values: [String]
    }

    struct ListSecretsInput: Encodable {
        var MaxResults: Int
        var NextToken: String?
        var Filters: [Filter]
        var IncludePlannedDeletion: Bool
        var SortOrder: String
    }

    struct ListedSecret: Decodable {
        var Name: String
        var Tags: [Tag]?
        var LastChangedDate: Double?
        var DeletedDate: Double?
    }

    struct ListSecretsOutput: Decodable {
        var SecretList: [ListedSecret]?
        var NextToken: String?
    }

    struct DeleteSecretInput: Encodable {
        var SecretId: String
        var RecoveryWindowInDays: Int
    }

    struct DeleteSecretOutput: Decodable {
        var DeletionDate: Double?
    }

    struct TagResourceInput: Encodable {
        var SecretId: String
        var Tags: [Tag]
    }

    struct UntagResourceInput: Encodable {
        var SecretId: String
        var TagKeys: [String]
    }

    struct Empty: Codable {}
}

extension Array where Element == SecretsManager.Tag {
    var dictionary: [String: String] {
        Dictionary(map { ($0.Key, $0.Value) }, uniquingKeysWith: { _, last in last })
    }

    init(_ tags: [String: String]) {
        self = tags.sorted { $0.key < $1.key }.map { SecretsManager.Tag(Key: $0.key, Value: $0.value) }
    }
}
