/// An AWS service spoken over the AWS JSON protocol.
package struct AWSService: Sendable, Hashable {
    /// The SigV4 signing name, e.g. `secretsmanager`.
    package let signingName: String
    /// The prefix of `X-Amz-Target`, e.g. `secretsmanager` or `DynamoDB_20120810`.
    package let targetPrefix: String
    /// The JSON protocol version for `Content-Type`: `1.1` or `1.0`.
    package let jsonVersion: String

    /// AWS Secrets Manager (AWS JSON 1.1).
    package static let secretsManager = AWSService(signingName: "secretsmanager", targetPrefix: "secretsmanager", jsonVersion: "1.1")

    /// Amazon DynamoDB (AWS JSON 1.0).
    package static let dynamoDB = AWSService(signingName: "dynamodb", targetPrefix: "DynamoDB_20120810", jsonVersion: "1.0")

    /// AWS Key Management Service (AWS JSON 1.1).
    package static let kms = AWSService(signingName: "kms", targetPrefix: "TrentService", jsonVersion: "1.1")

    /// The regional endpoint AWS serves this service at.
    package func regionalEndpoint(region: String) -> String {
        let suffix = region.hasPrefix("cn-") ? "amazonaws.com.cn" : "amazonaws.com"
        return "https://\(signingName).\(region).\(suffix)"
    }

}

/// A parsed `http(s)://host[:port][/path]` endpoint: what the signer needs (host, path)
/// and what the transport needs (the URL).
struct AWSEndpoint: Sendable, Equatable {
    /// The URL to POST to.
    let url: String
    /// The `Host` header value: host, plus port when it is not the scheme's default.
    let host: String
    /// The request path, `/` when the endpoint has none.
    let path: String

    /// Parses an endpoint, or returns `nil` when it is not an absolute http(s) URL.
    init?(_ string: String) {
        let scheme: String
        if string.hasPrefix("https://") {
            scheme = "https"
        } else if string.hasPrefix("http://") {
            scheme = "http"
        } else {
            return nil
        }
        let rest = string.dropFirst(scheme.count + 3)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.isEmpty, !authority.contains("@") else { return nil }
        var path = String(rest.dropFirst(authority.count).prefix { $0 != "?" && $0 != "#" })
        if path.isEmpty { path = "/" }
        let defaultPort = scheme == "https" ? ":443" : ":80"
        host = authority.hasSuffix(defaultPort) ? String(authority.dropLast(defaultPort.count)) : String(authority)
        self.path = path
        url = "\(scheme)://\(authority)\(path)"
    }
}

/// One AWS API operation a client calls, and what IAM must allow for it: each client
/// declares its operations beside the methods that call them, and ``AWSJSONClient`` calls
/// nothing else, so `paypulse iam` reads a function's permissions from the code.
package struct AWSOperation: Sendable, Hashable, CustomStringConvertible {
    /// What an operation's IAM action is granted on.
    package enum ResourceKind: String, Sendable, Hashable {
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
    package let service: AWSService
    /// The API operation, e.g. `GetSecretValue`: the `X-Amz-Target` suffix.
    package let name: String
    /// What its IAM action is granted on.
    package let resource: ResourceKind

    /// Declares an operation.
    package init(_ service: AWSService, _ name: String, on resource: ResourceKind) {
        self.service = service
        self.name = name
        self.resource = resource
    }

    /// The IAM action, e.g. `secretsmanager:GetSecretValue`.
    package var action: String { "\(service.signingName):\(name)" }

    package var description: String { "\(action) on \(resource.rawValue)" }
}
