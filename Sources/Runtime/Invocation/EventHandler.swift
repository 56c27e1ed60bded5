import Logging

/// What the runtime runs for each event: the Lambda loop and the stdin runner know this
/// protocol, never the handlers behind it (as swift-aws-lambda-runtime's `LambdaHandler`).
package protocol EventHandler: Sendable {
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
package enum InvocationOutcome: Sendable, Equatable {
    /// The answer to return: an encoded API Gateway response (any status, including the
    /// 400 for a body that is not base64) or a scheduled handler's JSON output.
    case response([UInt8])
    /// The event was not accepted: not JSON, of an unknown shape, or of a kind this
    /// executable has no handler for. The text is one line, safe to print.
    case rejected(String)
    /// The handler itself failed (only scheduled handlers can). The text is one line.
    case failed(String)
}

/// What the platform tells a handler about the invocation it serves, passed to every
/// handler call (the shape of swift-aws-lambda-runtime's `LambdaContext`). The Lambda
/// Runtime API loop fills it from the invocation's headers; standard-input mode and tests
/// have only a logger.
package struct InvocationContext: Sendable {
    /// The platform's request id (`Lambda-Runtime-Aws-Request-Id`), if any.
    package let requestID: String?
    /// The X-Ray trace header (`Lambda-Runtime-Trace-Id`), if any.
    package let traceID: String?
    /// When the invocation is cut off, on the monotonic clock; `nil` when unlimited.
    package let deadline: ContinuousClock.Instant?
    /// Where the handler logs; inside an invocation its lines carry the request id.
    package let logger: Logger

    /// Creates a context.
    package init(requestID: String? = nil, traceID: String? = nil, deadline: ContinuousClock.Instant? = nil, logger: Logger) {
        self.requestID = requestID
        self.traceID = traceID
        self.deadline = deadline
        self.logger = logger
    }

    /// The time left before ``deadline`` (negative once past), or `nil` without one.
    package var remainingTime: Duration? { deadline.map { $0 - .now } }
}
