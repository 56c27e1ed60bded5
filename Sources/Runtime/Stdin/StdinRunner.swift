import Logging

/// Stdin mode: read one event from standard input, answer it on standard output, exit.
///
/// Exactly one JSON document and a newline reach stdout on success (any HTTP status,
/// including the 400 for a body that is not base64). Anything else — input that is not
/// an event, an event kind the executable does not serve, an event over the Lambda
/// payload limit — prints one `label: error: ...` line on stderr, nothing on stdout, and
/// exits ``exitBadEvent``. Logs go to stderr through the logger passed in.
public enum StdinRunner {
    /// Exit status when a response was written.
    public static let exitSuccess: Int32 = 0
    /// Exit status when a scheduled handler threw or stdout could not be written.
    public static let exitHandlerFailed: Int32 = 1
    /// Exit status when the input was not an event this executable accepts.
    public static let exitBadEvent: Int32 = 2
    /// The largest event accepted: Lambda's 6 MB synchronous payload limit.
    public static let maximumEventBytes = 6 * 1024 * 1024

    /// Serves one event from standard input through `handler`.
    ///
    /// - Parameters:
    ///   - logger: Receives one line per handled event.
    ///   - handler: What handles each event (the function's handlers by event kind).
    ///   - streams: The descriptors to use; the process's own by default.
    /// - Returns: The exit status to pass to `exit`.
    public static func run(logger: Logger, handler: any EventHandler, streams: StandardStreams = .process) async -> Int32 {
        var result: StdinResult
        switch FileDescriptorIO.readAll(streams.input, limit: maximumEventBytes) {
        case .complete(let input):
            result = await process(input: input, logger: logger, handler: handler)
        case .tooLarge:
            result = rejection(tooLargeMessage, label: logger.label)
        case .failed(let code):
            result = rejection("cannot read standard input (errno \(code))", label: logger.label)
        }
        if !result.output.isEmpty, !FileDescriptorIO.writeAll(streams.output, result.output) {
            result = StdinResult(output: [], errorLine: "\(logger.label): error: cannot write standard output", exitCode: exitHandlerFailed)
        }
        if let line = result.errorLine {
            FileDescriptorIO.writeAll(streams.error, Array((line + "\n").utf8))
        }
        return result.exitCode
    }

    /// The pure part of ``run(logger:handler:streams:)``: what to write and how to exit
    /// for `input`.
    ///
    /// - Parameters:
    ///   - input: Everything read from standard input.
    ///   - logger: Receives one line per handled event.
    ///   - handler: What handles each event (the function's handlers by event kind).
    /// - Returns: The output bytes (JSON + newline, or empty), the error line and the exit status.
    public static func process(input: [UInt8], logger: Logger, handler: any EventHandler) async -> StdinResult {
        guard input.count <= maximumEventBytes else { return rejection(tooLargeMessage, label: logger.label) }
        switch await handler.handle(input, context: InvocationContext(logger: logger)) {
        case .response(let bytes):
            return StdinResult(output: bytes + [UInt8(ascii: "\n")], errorLine: nil, exitCode: exitSuccess)
        case .rejected(let message):
            return rejection(message, label: logger.label)
        case .failed(let message):
            return StdinResult(output: [], errorLine: errorLine(message, label: logger.label), exitCode: exitHandlerFailed)
        }
    }

    private static let tooLargeMessage = "the event is larger than \(maximumEventBytes) bytes, the Lambda payload limit"

    private static func rejection(_ message: String, label: String) -> StdinResult {
        StdinResult(output: [], errorLine: errorLine(message, label: label), exitCode: exitBadEvent)
    }

    /// `label: error: message` on one line, whatever the message holds.
    private static func errorLine(_ message: String, label: String) -> String {
        let flat = message.split(whereSeparator: \.isNewline).joined(separator: " ")
        return "\(label): error: \(flat)"
    }
}
