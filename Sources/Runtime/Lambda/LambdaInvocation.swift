/// One event from `GET /runtime/invocation/next`: the payload and what the headers say.
public struct LambdaInvocation: Sendable, Equatable {
    /// `Lambda-Runtime-Aws-Request-Id`.
    public var requestID: String
    /// `Lambda-Runtime-Deadline-Ms`: when the invocation is cut off, in milliseconds
    /// since the Unix epoch; `nil` when absent or not a number.
    public var deadlineEpochMilliseconds: Int64?
    /// `Lambda-Runtime-Invoked-Function-Arn`, if sent.
    public var invokedFunctionARN: String?
    /// `Lambda-Runtime-Trace-Id`, if sent; exported as `_X_AMZN_TRACE_ID`.
    public var traceID: String?
    /// The event JSON.
    public var event: [UInt8]

    /// Creates an invocation.
    public init(
        requestID: String, deadlineEpochMilliseconds: Int64? = nil, invokedFunctionARN: String? = nil,
        traceID: String? = nil, event: [UInt8]
    ) {
        self.requestID = requestID
        self.deadlineEpochMilliseconds = deadlineEpochMilliseconds
        self.invokedFunctionARN = invokedFunctionARN
        self.traceID = traceID
        self.event = event
    }
}
