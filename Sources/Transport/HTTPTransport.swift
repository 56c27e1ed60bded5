/// Sends one HTTP request and returns the response; the seam every adapter talks through.
///
/// Implementations are safe to call concurrently, e.g. from a task group.
public protocol HTTPTransport: Sendable {
    /// Performs the exchange.
    /// - Throws: ``TransportError`` when no complete response arrived.
    func execute(_ request: HTTPRequest) async throws -> HTTPResponse
}
