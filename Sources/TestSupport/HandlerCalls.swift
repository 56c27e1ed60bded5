import Logging
import PayPulseHandlers
import PayPulseRuntime

// Tests call handlers with a logger alone, as standard-input mode does: the context then
// has no request id and no deadline.

extension APIRouteHandler {
    /// Answers `request` with a context holding only `logger`.
    package func handle(_ request: APIRequest, logger: Logger) async -> APIResponse {
        await handle(request, context: InvocationContext(logger: logger))
    }
}

extension TokenRefreshHandler {
    /// Runs one refresh with a context holding `deadline` and `logger`.
    package func handle(detail: [UInt8], deadline: ContinuousClock.Instant?, logger: Logger) async throws -> [UInt8] {
        try await handle(detail: detail, context: InvocationContext(deadline: deadline, logger: logger))
    }
}
