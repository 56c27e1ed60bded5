/// A failure on our side of an AWS call: bad configuration or an answer we cannot read.
package enum AWSClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The endpoint is not an absolute http(s) URL.
    case invalidEndpoint(String)
    /// A 2xx answer whose body does not have the expected shape.
    case unreadableResponse(operation: String, status: Int)

    package var description: String {
        switch self {
        case .invalidEndpoint(let endpoint): "invalid AWS endpoint '\(endpoint)': expected http(s)://host[:port]"
        case .unreadableResponse(let operation, let status): "unreadable \(operation) response (HTTP \(status))"
        }
    }
}
