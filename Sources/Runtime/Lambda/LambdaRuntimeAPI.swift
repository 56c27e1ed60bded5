/// The Lambda Runtime API as the loop sees it: one call per endpoint, so tests can
/// script it in memory and production talks HTTP (``HTTPLambdaRuntimeAPI``).
package protocol LambdaRuntimeAPI: Sendable {
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

/// The Runtime API answered out of protocol.
package enum LambdaRuntimeAPIError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An unexpected status for a call, e.g. 413 for a response over the payload limit.
    case unexpectedStatus(Int, call: String)
    /// `invocation/next` came without `Lambda-Runtime-Aws-Request-Id`.
    case missingRequestID

    /// Whether the API refused one message but the process can go on (a 4xx: the request
    /// id is unknown or the payload too large); 5xx means the runtime must exit.
    package var isRecoverable: Bool {
        if case .unexpectedStatus(let status, _) = self { return (400..<500).contains(status) }
        return false
    }

    package var description: String {
        switch self {
        case .unexpectedStatus(let status, let call): "the Runtime API answered \(status) to \(call)"
        case .missingRequestID: "the Runtime API sent an event without Lambda-Runtime-Aws-Request-Id"
        }
    }
}

/// One event from `GET /runtime/invocation/next`: the payload and what the headers say.
package struct LambdaInvocation: Sendable, Equatable {
    /// `Lambda-Runtime-Aws-Request-Id`.
    package var requestID: String
    /// `Lambda-Runtime-Deadline-Ms`: when the invocation is cut off, in milliseconds
    /// since the Unix epoch; `nil` when absent or not a number.
    package var deadlineEpochMilliseconds: Int64?
    /// `Lambda-Runtime-Invoked-Function-Arn`, if sent.
    package var invokedFunctionARN: String?
    /// `Lambda-Runtime-Trace-Id`, if sent; exported as `_X_AMZN_TRACE_ID`.
    package var traceID: String?
    /// The event JSON.
    package var event: [UInt8]

    /// Creates an invocation.
    package init(
        requestID: String, deadlineEpochMilliseconds: Int64? = nil, invokedFunctionARN: String? = nil,
        traceID: String? = nil, event: [UInt8]
    ) {
        self.requestID = requestID
        self.deadlineEpochMilliseconds = deadlineEpochMilliseconds
        self.invokedFunctionARN = invokedFunctionARN
        self.traceID = traceID
        self.event = event
    }
}

/// An error as the Runtime API takes it: `{"errorType": ..., "errorMessage": ...}`, with
/// the type repeated in the `Lambda-Runtime-Function-Error-Type` header.
package struct LambdaError: Sendable, Equatable, Error {
    /// A dotted category, e.g. ``invalidEventType``.
    package var errorType: String
    /// One line for the caller and the logs; never a token, header or body.
    package var errorMessage: String

    /// Creates an error.
    package init(errorType: String, errorMessage: String) {
        self.errorType = errorType
        self.errorMessage = errorMessage
    }

    /// The event was not one this function accepts (``InvocationOutcome/rejected(_:)``).
    package static let invalidEventType = "Runtime.InvalidEvent"
    /// The handler failed (``InvocationOutcome/failed(_:)``).
    package static let handlerFailedType = "Runtime.HandlerFailed"
    /// Start-up (configuration, keys, clients) failed.
    package static let initFailedType = "Runtime.InitError"

    /// The JSON body to post.
    package var jsonBody: [UInt8] {
        Array(#"{"errorType":\#(JSONString.quoted(errorType)),"errorMessage":\#(JSONString.quoted(errorMessage))}"#.utf8)
    }
}
