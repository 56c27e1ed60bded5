/// An AWS service spoken over the AWS JSON protocol.
public struct AWSService: Sendable, Hashable {
    /// The SigV4 signing name, e.g. `secretsmanager`.
    public let signingName: String
    /// The prefix of `X-Amz-Target`, e.g. `secretsmanager` or `DynamoDB_20120810`.
    public let targetPrefix: String
    /// The JSON protocol version for `Content-Type`: `1.1` or `1.0`.
    public let jsonVersion: String

    /// AWS Secrets Manager (AWS JSON 1.1).
    public static let secretsManager = AWSService(signingName: "secretsmanager", targetPrefix: "secretsmanager", jsonVersion: "1.1")

    /// Amazon DynamoDB (AWS JSON 1.0).
    public static let dynamoDB = AWSService(signingName: "dynamodb", targetPrefix: "DynamoDB_20120810", jsonVersion: "1.0")

    /// AWS Key Management Service (AWS JSON 1.1).
    public static let kms = AWSService(signingName: "kms", targetPrefix: "TrentService", jsonVersion: "1.1")

    /// The regional endpoint AWS serves this service at.
    public func regionalEndpoint(region: String) -> String {
        let suffix = region.hasPrefix("cn-") ? "amazonaws.com.cn" : "amazonaws.com"
        return "https://\(signingName).\(region).\(suffix)"
    }

}
