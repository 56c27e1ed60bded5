#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Logging

/// The Lambda Runtime API loop: one process serves many invocations, one at a time.
///
/// For each event it builds the `InvocationContext` (request id, trace id, deadline,
/// logger), scopes the request id for log lines, exports the trace id, runs
/// ``EventHandler/handle(_:context:)`` and posts the outcome: the
/// bytes to `/response`; a rejected event (``LambdaError/invalidEventType``) or a failed
/// handler (``LambdaError/handlerFailedType``) to `/error`. A bad event never ends the
/// process; only a Runtime API that cannot be talked to does.
package enum LambdaLoop {
    /// Serves invocations until the API fails or `maxInvocations` have been served.
    ///
    /// - Parameters:
    ///   - api: The Runtime API.
    ///   - handler: The function's handler, built once before the loop.
    ///   - logger: The process logger; each invocation's lines carry `requestId`.
    ///   - maxInvocations: Stop after this many (tests); `nil` serves forever.
    /// - Throws: The API's error when fetching an event or posting an outcome failed in
    ///   a way the process cannot recover from; the caller should exit non-zero.
    package static func run(api: any LambdaRuntimeAPI, handler: any EventHandler, logger: Logger, maxInvocations: Int? = nil) async throws {
        var served = 0
        while maxInvocations.map({ served < $0 }) ?? true {
            let invocation = try await api.nextInvocation()
            try await serve(invocation, api: api, handler: handler, logger: logger)
            served += 1
        }
    }

    /// Runs one invocation and posts its outcome.
    static func serve(_ invocation: LambdaInvocation, api: any LambdaRuntimeAPI, handler: any EventHandler, logger: Logger) async throws {
        TraceEnvironment.export(invocation.traceID)
        let context = InvocationContext(
            requestID: invocation.requestID, traceID: invocation.traceID,
            deadline: invocation.deadlineEpochMilliseconds.map { LambdaDeadline.instant(epochMilliseconds: $0) }, logger: logger
        )
        try await RequestScope.$requestID.withValue(invocation.requestID) {
            try await answer(invocation, context: context, api: api, handler: handler)
        }
    }

    /// Runs the handler and posts what became of the event.
    private static func answer(
        _ invocation: LambdaInvocation, context: InvocationContext, api: any LambdaRuntimeAPI, handler: any EventHandler
    ) async throws {
        let logger = context.logger
        let outcome = await handler.handle(invocation.event, context: context)
        do {
            switch outcome {
            case .response(let bytes):
                try await api.postResponse(requestID: invocation.requestID, body: bytes)
            case .rejected(let message):
                logger.warning("rejected event", metadata: ["reason": "\(message)"])
                try await api.postError(
                    requestID: invocation.requestID, error: LambdaError(errorType: LambdaError.invalidEventType, errorMessage: message)
                )
            case .failed(let message):
                try await api.postError(
                    requestID: invocation.requestID, error: LambdaError(errorType: LambdaError.handlerFailedType, errorMessage: message)
                )
            }
        } catch let error as LambdaRuntimeAPIError where error.isRecoverable {
            // The API refused this one answer (e.g. 413, too large); the next event is
            // unaffected, so keep serving.
            logger.error("the Runtime API refused the outcome", metadata: ["reason": "\(error)"])
        }
    }

    /// Reports a start-up failure to `/runtime/init/error`. Failing to report is logged,
    /// not thrown: the process exits non-zero either way.
    ///
    /// - Parameters:
    ///   - message: One line naming what failed (e.g. the bad variable).
    ///   - api: The Runtime API.
    ///   - logger: Where a failure to report is logged.
    package static func reportInitError(_ message: String, api: any LambdaRuntimeAPI, logger: Logger) async {
        do {
            try await api.postInitError(LambdaError(errorType: LambdaError.initFailedType, errorMessage: message))
        } catch {
            logger.error("cannot report the start-up failure to the Runtime API", metadata: ["reason": "\(error)"])
        }
    }
}

/// Turns the Runtime API's wall-clock deadline into a monotonic one, so handlers
/// compare it with `ContinuousClock.now` and a clock step cannot move it.
package enum LambdaDeadline {
    /// The instant `epochMilliseconds` falls on, measured from a pair of readings of
    /// the two clocks taken together.
    ///
    /// - Parameters:
    ///   - epochMilliseconds: The deadline, in milliseconds since the Unix epoch.
    ///   - wallNow: The wall clock now, in milliseconds since the epoch.
    ///   - monotonicNow: `ContinuousClock.now` read at the same moment.
    /// - Returns: The deadline on the continuous clock (in the past if it has passed).
    package static func instant(
        epochMilliseconds: Int64, wallNow: Int64 = LogTimestamp.now().millisecondsSinceEpoch,
        monotonicNow: ContinuousClock.Instant = .now
    ) -> ContinuousClock.Instant {
        monotonicNow.advanced(by: .milliseconds(epochMilliseconds - wallNow))
    }
}

/// `_X_AMZN_TRACE_ID`, which the X-Ray SDKs read for the current invocation.
enum TraceEnvironment {
    /// The variable's name.
    static let variable = "_X_AMZN_TRACE_ID"

    /// Exports `traceID` for the invocation about to run, or removes the previous
    /// invocation's id so it is never attributed to this one. Invocations run one at a
    /// time in a process, so the process-wide variable is safe to change here.
    static func export(_ traceID: String?) {
        if let traceID {
            setenv(variable, traceID, 1)
        } else {
            unsetenv(variable)
        }
    }
}
