/// The API Gateway Lambda proxy payload format an HTTP event arrived in. The answer
/// must use the same format.
public enum PayloadVersion: String, Sendable, Equatable, Hashable, CaseIterable {
    /// REST API (and HTTP API payload 1.0): `httpMethod`, `path`, `multiValueHeaders`.
    case v1 = "1.0"
    /// HTTP API payload 2.0: `version: "2.0"`, `rawPath`, `requestContext.http`.
    case v2 = "2.0"
}
