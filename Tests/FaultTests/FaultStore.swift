/// The grant store a fault matrix runs on: grants as secrets (Secrets Manager) or as items of
/// a DynamoDB table sealed under KMS. Both are on the bench's moto, behind the AWS proxy.
enum FaultStore: String, CaseIterable, Sendable, CustomStringConvertible {
    case secretsManager = "secretsmanager"
    case dynamoDB = "dynamodb"

    /// For the report's title.
    var description: String {
        switch self {
        case .secretsManager: "Secrets Manager"
        case .dynamoDB: "DynamoDB + KMS"
        }
    }
}
