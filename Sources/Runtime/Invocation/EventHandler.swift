/// What the runtime runs for each event: the Lambda loop and the stdin runner know this
/// protocol, never the handlers behind it (as swift-aws-lambda-runtime's `LambdaHandler`).
public protocol EventHandler: Sendable {
    /// Handles one raw event and says what to answer.
    ///
    /// - Parameters:
    ///   - event: The event's bytes as they came (JSON for every source the runtime knows).
    ///   - context: The invocation: request and trace ids, deadline, logger.
    /// - Returns: The outcome; an implementation never throws and never traps on bad input.
    func handle(_ event: [UInt8], context: InvocationContext) async -> InvocationOutcome
}

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
