/// What the platform tells about the current invocation. The Lambda Runtime API loop sets
/// it for each event (request id, deadline); stdin mode has none.
public struct InvocationContext: Sendable, Equatable {
    /// The platform's request id, for logs.
    public var requestID: String
    /// When the invocation is cut off.
    public var deadline: ContinuousClock.Instant?

    /// Creates a context.
    public init(requestID: String, deadline: ContinuousClock.Instant?) {
        self.requestID = requestID
        self.deadline = deadline
    }

    /// The context of the invocation running on this task, if any.
    @TaskLocal public static var current: InvocationContext?
}
