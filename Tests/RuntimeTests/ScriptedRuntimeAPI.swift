@testable import PayPulseHandlers
@testable import PayPulseRuntime

/// An in-memory Runtime API: hands out queued invocations, records every post, and
/// can refuse chosen posts.
actor ScriptedRuntimeAPI: LambdaRuntimeAPI {
    enum Post: Equatable {
        case response(requestID: String, body: [UInt8])
        case error(requestID: String, LambdaError)
        case initError(LambdaError)
    }

    /// Thrown by `nextInvocation` once the queue is empty.
    struct Exhausted: Error {}

    private var queue: [LambdaInvocation]
    private let refuseResponsesWith: LambdaRuntimeAPIError?
    private(set) var posts: [Post] = []

    init(_ invocations: [LambdaInvocation], refuseResponsesWith: LambdaRuntimeAPIError? = nil) {
        queue = invocations
        self.refuseResponsesWith = refuseResponsesWith
    }

    func nextInvocation() async throws -> LambdaInvocation {
        guard !queue.isEmpty else { throw Exhausted() }
        return queue.removeFirst()
    }

    func postResponse(requestID: String, body: [UInt8]) async throws {
        if let refuseResponsesWith { throw refuseResponsesWith }
        posts.append(.response(requestID: requestID, body: body))
    }

    func postError(requestID: String, error: LambdaError) async throws {
        posts.append(.error(requestID: requestID, error))
    }

    func postInitError(_ error: LambdaError) async throws {
        posts.append(.initError(error))
    }
}
