/// An error as the Runtime API takes it: `{"errorType": ..., "errorMessage": ...}`, with
/// the type repeated in the `Lambda-Runtime-Function-Error-Type` header.
public struct LambdaError: Sendable, Equatable, Error {
    /// A dotted category, e.g. ``invalidEventType``.
    public var errorType: String
    /// One line for the caller and the logs; never a token, header or body.
    public var errorMessage: String

    /// Creates an error.
    public init(errorType: String, errorMessage: String) {
        self.errorType = errorType
        self.errorMessage = errorMessage
    }

    /// The event was not one this function accepts (``InvocationOutcome/rejected(_:)``).
    public static let invalidEventType = "Runtime.InvalidEvent"
    /// The handler failed (``InvocationOutcome/failed(_:)``).
    public static let handlerFailedType = "Runtime.HandlerFailed"
    /// Start-up (configuration, keys, clients) failed.
    public static let initFailedType = "Runtime.InitError"

    /// The JSON body to post.
    public var jsonBody: [UInt8] {
        Array(#"{"errorType":\#(JSONString.quoted(errorType)),"errorMessage":\#(JSONString.quoted(errorMessage))}"#.utf8)
    }
}
