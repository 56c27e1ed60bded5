#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PayPulseDomain
import PayPulseRuntime

/// An API route's handler: it answers with a response or throws an ``APIError``, and
/// ``handle(_:context:)`` turns every failure into its error response, so the runtime
/// never sees a throw from a route.
package protocol APIRouteHandler: Sendable {
    /// Answers one request.
    /// - Throws: ``APIError`` for every refusal or failure.
    func respond(to request: APIRequest, context: InvocationContext) async throws(APIError) -> APIResponse
}

extension APIRouteHandler {
    /// Answers one request; never throws.
    package func handle(_ request: APIRequest, context: InvocationContext) async -> APIResponse {
        do {
            return try await respond(to: request, context: context)
        } catch {
            return error.response
        }
    }
}

/// The checks every API route makes first: the method, then who is calling.
package struct RequestGuard: Sendable {
    let authenticator: Authenticator
    let now: @Sendable () -> Date

    /// Creates a guard.
    package init(authenticator: Authenticator, now: @escaping @Sendable () -> Date = { Date() }) {
        self.authenticator = authenticator
        self.now = now
    }

    /// Checks the method and authenticates the caller.
    /// - Throws: ``APIError`` 405, 401, or 503 when the issuer's keys cannot be fetched.
    package func admit(_ request: APIRequest, method: String, logger: Logger) async throws(APIError) -> AuthenticatedUser {
        guard request.method == method else { throw .methodNotAllowed(allowed: method) }
        do {
            return try await authenticator.authenticate(
                authorizationHeader: request.headers["authorization"], authorizerClaims: request.authorizerClaims, now: now()
            )
        } catch {
            // The reason is for operators; the caller gets one generic answer.
            logger.info("authentication refused", metadata: ["reason": "\(error)"])
            throw error.isUnavailable ? .signInKeysUnavailable : .unauthorized
        }
    }
}
