import Logging
import PayPulseRuntime

/// An API route's handler: it answers with a response or throws an ``APIError``, and
/// ``handle(_:context:)`` turns every failure into its error response, so the runtime
/// never sees a throw from a route.
public protocol APIRouteHandler: Sendable {
    /// Answers one request.
    /// - Throws: ``APIError`` for every refusal or failure.
    func respond(to request: APIRequest, context: InvocationContext) async throws(APIError) -> APIResponse
}

extension APIRouteHandler {
    /// Answers one request; never throws.
    public func handle(_ request: APIRequest, context: InvocationContext) async -> APIResponse {
        do {
            return try await respond(to: request, context: context)
        } catch {
            return error.response
        }
    }
}
