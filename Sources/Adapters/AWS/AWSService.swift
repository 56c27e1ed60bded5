/// An AWS service spoken over the AWS JSON protocol.
public struct AWSService: Sendable, Hashable {
    /// The SigV4 signing name, e.g. `secretsmanager`.
    public let signingName: String
    /// The prefix of `X-Amz-Target`, e.g. `secretsmanager` or `DynamoDB_20120810`.
    public let targetPrefix: String
    /// The JSON protocol version for `Content-Type`: `1.1` or `1.0`.
    public let jsonVersion: String
    /// The service-specific endpoint variable, e.g. `AWS_ENDPOINT_URL_SECRETS_MANAGER`.
    public let endpointVariable: String

    /// AWS Secrets Manager (AWS JSON 1.1).
    public static let secretsManager = AWSService(
        signingName: "secretsmanager", targetPrefix: "secretsmanager", jsonVersion: "1.1",
        endpointVariable: "AWS_ENDPOINT_URL_SECRETS_MANAGER"
    )

    /// Amazon DynamoDB (AWS JSON 1.0).
    public static let dynamoDB = AWSService(
        signingName: "dynamodb", targetPrefix: "DynamoDB_20120810", jsonVersion: "1.0",
        endpointVariable: "AWS_ENDPOINT_URL_DYNAMODB"
    )

    /// The regional endpoint AWS serves this service at.
    public func regionalEndpoint(region: String) -> String {
        let suffix = region.hasPrefix("cn-") ? "amazonaws.com.cn" : "amazonaws.com"
        return "https://\(signingName).\(region).\(suffix)"
    }

    /// The endpoint to use: the service's own variable, then `AWS_ENDPOINT_URL`, then the
    /// regional AWS endpoint (the order the AWS SDKs and CLI use).
    public func endpoint(region: String, environment: [String: String]) -> String {
        for variable in [endpointVariable, "AWS_ENDPOINT_URL"] {
            if let value = environment[variable], !value.isEmpty { return value }
        }
        return regionalEndpoint(region: region)
    }
}
