import Logging

/// What the platform tells a handler about the invocation it serves, passed to every
/// handler call (the shape of swift-aws-lambda-runtime's `LambdaContext`). The Lambda
/// Runtime API loop fills it from the invocation's headers; standard-input mode and tests
/// have only a logger.
public struct InvocationContext: Sendable {
    /// The platform's request id (`Lambda-Runtime-Aws-Request-Id`), if any.
    public let requestID: String?
    /// The X-Ray trace header (`Lambda-Runtime-Trace-Id`), if any.
    public let traceID: String?
    /// When the invocation is cut off, on the monotonic clock; `nil` when unlimited.
    public let deadline: ContinuousClock.Instant?
    /// Where the handler logs; inside an invocation its lines carry the request id.
    public let logger: Logger

    /// Creates a context.
    public init(requestID: String? = nil, traceID: String? = nil, deadline: ContinuousClock.Instant? = nil, logger: Logger) {
        self.requestID = requestID
        self.traceID = traceID
        self.deadline = deadline
        self.logger = logger
    }

    /// The time left before ``deadline`` (negative once past), or `nil` without one.
    public var remainingTime: Duration? { deadline.map { $0 - .now } }
}
