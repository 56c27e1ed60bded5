/// What became of one event, independent of where it came from (stdin now, the Lambda
/// Runtime API later) so that each front end only maps it to its own channel.
public enum InvocationOutcome: Sendable, Equatable {
    /// The answer to return: an encoded API Gateway response (any status, including the
    /// 400 for a body that is not base64) or a scheduled handler's JSON output.
    case response([UInt8])
    /// The event was not accepted: not JSON, of an unknown shape, or of a kind this
    /// executable has no handler for. The text is one line, safe to print.
    case rejected(String)
    /// The handler itself failed (only scheduled handlers can). The text is one line.
    case failed(String)
}
