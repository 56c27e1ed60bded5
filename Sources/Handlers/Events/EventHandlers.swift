import Logging
import PayPulseRuntime

/// The handlers one executable offers, by event kind. An executable sets the ones it
/// serves (`store-tokens` only `http`, `token-refresh` only `scheduled`); an event of
/// another kind is rejected, not guessed at.
package struct EventHandlers: EventHandler {
    /// Answers an API Gateway request. It cannot fail: errors are responses.
    package typealias HTTP = @Sendable (APIRequest, InvocationContext) async -> APIResponse
    /// Handles a scheduled event and returns its result as JSON text (printed in stdin
    /// mode, returned to Lambda). Throwing marks the invocation failed.
    package typealias Scheduled = @Sendable (ScheduledEvent, InvocationContext) async throws -> [UInt8]

    /// Answers a direct invocation (the Lambda Invoke API) from its JSON payload. It cannot
    /// fail: errors are in the answer.
    package typealias Direct = @Sendable ([UInt8], InvocationContext) async -> [UInt8]

    /// The API Gateway handler, if this executable serves HTTP.
    package var http: HTTP?
    /// The scheduled-event handler, if this executable runs on a schedule.
    package var scheduled: Scheduled?
    /// The direct-invocation handler. An executable that has one serves nothing else: every
    /// payload goes to it as it came.
    package var direct: Direct?

    /// Creates a set of handlers.
    ///
    /// - Parameters:
    ///   - http: The API Gateway handler, or `nil`.
    ///   - scheduled: The scheduled-event handler, or `nil`.
    package init(http: HTTP? = nil, scheduled: Scheduled? = nil) {
        self.http = http
        self.scheduled = scheduled
    }

    /// Handlers for a function invoked directly only.
    package init(direct: @escaping Direct) {
        self.direct = direct
    }

    /// Decodes one event, runs the matching handler and says what to answer.
    ///
    /// A body that is not base64 or bytes that are not UTF-8 are answered here with 400
    /// `invalid_request`, a body over 64 KiB with 413 `payload_too_large` (the event is
    /// fine; the client sent a bad request), so the HTTP handler never sees them. Logs name
    /// the method, path and status, never headers, query or body.
    ///
    /// - Parameters:
    ///   - event: The raw event JSON.
    ///   - context: The invocation, passed on to the handler; its logger gets the outcome.
    /// - Returns: The outcome; never throws, never traps on bad input.
    package func handle(_ event: [UInt8], context: InvocationContext) async -> InvocationOutcome {
        let logger = context.logger
        if let direct {
            let answer = await direct(event, context)
            logger.info("handled direct invocation")
            return .response(answer)
        }
        let incoming: IncomingEvent
        do {
            incoming = try IncomingEvent.decode(event)
        } catch {
            if let (response, version) = error.clientErrorResponse {
                logger.notice("rejected request", metadata: [
                    "reason": "\(error.description)", "status": "\(response.status)", "payload": "\(version.rawValue)",
                ])
                return .response(response.encoded(for: version))
            }
            return .rejected(error.description)
        }
        switch incoming {
        case .http(let request, let version):
            guard let http else { return .rejected("this executable does not handle API Gateway events") }
            let response = await http(request, context)
            logger.info(
                "handled request",
                metadata: [
                    "method": "\(request.method)", "path": "\(request.path)", "status": "\(response.status)",
                    "payload": "\(version.rawValue)",
                ]
            )
            return .response(response.encoded(for: version))
        case .scheduled(let scheduledEvent):
            guard let scheduled else { return .rejected("this executable does not handle scheduled events") }
            do {
                let output = try await scheduled(scheduledEvent, context)
                logger.info("handled scheduled event", metadata: ["detail_type": "\(scheduledEvent.detailType)"])
                return .response(output)
            } catch {
                logger.error("scheduled event failed", metadata: ["detail_type": "\(scheduledEvent.detailType)"])
                return .failed("the scheduled handler failed: \(error)")
            }
        }
    }
}
