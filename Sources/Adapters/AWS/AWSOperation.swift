/// One AWS API operation a client calls, and what IAM must allow for it: each client
/// declares its operations beside the methods that call them, and ``AWSJSONClient`` calls
/// nothing else, so `paypulse iam` reads a function's permissions from the code.
public struct AWSOperation: Sendable, Hashable, CustomStringConvertible {
    /// What an operation's IAM action is granted on.
    public enum ResourceKind: String, Sendable, Hashable {
        /// A secret (its ARN).
        case secret
        /// A DynamoDB table.
        case table
        /// A global secondary index of a table (a `Query` with `IndexName`).
        case index
        /// A KMS key.
        case key
        /// Nothing narrower than `*`: the action takes no resource (`ListSecrets`, `CreateKey`).
        case any
    }

    /// The service spoken.
    public let service: AWSService
    /// The API operation, e.g. `GetSecretValue`: the `X-Amz-Target` suffix.
    public let name: String
    /// What its IAM action is granted on.
    public let resource: ResourceKind

    /// Declares an operation.
    public init(_ service: AWSService, _ name: String, on resource: ResourceKind) {
        self.service = service
        self.name = name
        self.resource = resource
    }

    /// The IAM action, e.g. `secretsmanager:GetSecretValue`.
    public var action: String { "\(service.signingName):\(name)" }

    public var description: String { "\(action) on \(resource.rawValue)" }
}
