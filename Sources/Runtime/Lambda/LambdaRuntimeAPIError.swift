/// The Runtime API answered out of protocol.
public enum LambdaRuntimeAPIError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An unexpected status for a call, e.g. 413 for a response over the payload limit.
    case unexpectedStatus(Int, call: String)
    /// `invocation/next` came without `Lambda-Runtime-Aws-Request-Id`.
    case missingRequestID

    /// Whether the API refused one message but the process can go on (a 4xx: the request
    /// id is unknown or the payload too large); 5xx means the runtime must exit.
    public var isRecoverable: Bool {
        if case .unexpectedStatus(let status, _) = self { return (400..<500).contains(status) }
        return false
    }

    public var description: String {
        switch self {
        case .unexpectedStatus(let status, let call): "the Runtime API answered \(status) to \(call)"
        case .missingRequestID: "the Runtime API sent an event without Lambda-Runtime-Aws-Request-Id"
        }
    }
}
