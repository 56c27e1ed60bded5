/// The Lambda Runtime API as the loop sees it: one call per endpoint, so tests can
/// script it in memory and production talks HTTP (``HTTPLambdaRuntimeAPI``).
public protocol LambdaRuntimeAPI: Sendable {
    /// Waits for the next event (`GET /runtime/invocation/next`); may wait indefinitely.
    /// - Throws: When the Runtime API cannot be reached or answers out of protocol; the
    ///   process should then exit.
    func nextInvocation() async throws -> LambdaInvocation

    /// Returns the answer to invocation `requestID` (`POST /runtime/invocation/{id}/response`).
    func postResponse(requestID: String, body: [UInt8]) async throws

    /// Reports invocation `requestID` failed (`POST /runtime/invocation/{id}/error`).
    func postError(requestID: String, error: LambdaError) async throws

    /// Reports the process could not start (`POST /runtime/init/error`).
    func postInitError(_ error: LambdaError) async throws
}
