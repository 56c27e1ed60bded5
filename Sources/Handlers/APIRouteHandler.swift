import Logging

/// An API route's handler: it answers with a response or throws an ``APIError``, and
/// ``handle(_:logger:)`` turns every failure into its error response, so the runtime
/// never sees a throw from a route.
public protocol APIRouteHandler: Sendable {
    /// Answers one request.
    /// - Throws: ``APIError`` for every refusal or failure.
    func respond(to request: APIRequest, logger: Logger) async throws(APIError) -> APIResponse
}

extension APIRouteHandler {
    /// Answers one request; never throws.
    public func handle(_ request: APIRequest, logger: Logger) async -> APIResponse {
        do {
            return try await respond(to: request, logger: logger)
        } catch {
            return error.response
        }
    }
}
