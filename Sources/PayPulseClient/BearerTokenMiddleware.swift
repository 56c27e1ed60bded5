import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Adds `Authorization: Bearer <token>` to every request of the generated ``Client``: the
/// PayPulse JWT the app holds for the signed-in user, asked for anew per request so a
/// refreshed one is used at once.
public struct BearerTokenMiddleware: ClientMiddleware {
    private let token: @Sendable () async throws -> String

    /// Creates the middleware.
    /// - Parameter token: Returns the current PayPulse JWT.
    public init(token: @escaping @Sendable () async throws -> String) {
        self.token = token
    }

    public func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields[.authorization] = "Bearer \(try await token())"
        return try await next(request, body, baseURL)
    }
}
