#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Logging

/// Stdin mode: read one event from standard input, answer it on standard output, exit.
///
/// Exactly one JSON document and a newline reach stdout on success (any HTTP status,
/// including the 400 for a body that is not base64). Anything else — input that is not
/// an event, an event kind the executable does not serve, an event over the Lambda
/// payload limit — prints one `label: error: ...` line on stderr, nothing on stdout, and
/// exits ``exitBadEvent``. Logs go to stderr through the logger passed in.
package enum StdinRunner {
    /// Exit status when a response was written.
    package static let exitSuccess: Int32 = 0
    /// Exit status when a scheduled handler threw or stdout could not be written.
    package static let exitHandlerFailed: Int32 = 1
    /// Exit status when the input was not an event this executable accepts.
    package static let exitBadEvent: Int32 = 2
    /// The largest event accepted: Lambda's 6 MB synchronous payload limit.
    package static let maximumEventBytes = 6 * 1024 * 1024

    /// Serves one event from standard input through `handler`.
    ///
    /// - Parameters:
    ///   - logger: Receives one line per handled event.
    ///   - handler: What handles each event (the function's handlers by event kind).
    ///   - streams: The descriptors to use; the process's own by default.
    /// - Returns: The exit status to pass to `exit`.
    package static func run(logger: Logger, handler: any EventHandler, streams: StandardStreams = .process) async -> Int32 {
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
    package static func process(input: [UInt8], logger: Logger, handler: any EventHandler) async -> StdinResult {
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

/// What a stdin-mode run writes and how it exits, computed without touching any
/// descriptor so tests can check it directly.
package struct StdinResult: Sendable, Equatable {
    /// The bytes for standard output: one JSON document and a newline, or nothing.
    package var output: [UInt8]
    /// One line (without newline) for standard error, or `nil`.
    package var errorLine: String?
    /// The process exit status: ``StdinRunner/exitSuccess``,
    /// ``StdinRunner/exitHandlerFailed`` or ``StdinRunner/exitBadEvent``.
    package var exitCode: Int32

    /// Creates a result.
    package init(output: [UInt8], errorLine: String?, exitCode: Int32) {
        self.output = output
        self.errorLine = errorLine
        self.exitCode = exitCode
    }
}

/// The three file descriptors a stdin-mode run uses: 0, 1 and 2 for a real process,
/// pipes in tests. Plain `read`/`write` on descriptors keep full Foundation (and its ICU
/// data) out of the binary, and avoid the C `stderr` global Swift 6 refuses.
package struct StandardStreams: Sendable, Equatable {
    /// Where the event is read from.
    package var input: Int32
    /// Where the one response line goes.
    package var output: Int32
    /// Where error lines (and logs, through ``StderrLogHandler``) go.
    package var error: Int32

    /// Creates a set of descriptors.
    ///
    /// - Parameters:
    ///   - input: The descriptor to read the event from.
    ///   - output: The descriptor for the response.
    ///   - error: The descriptor for error lines.
    package init(input: Int32, output: Int32, error: Int32) {
        self.input = input
        self.output = output
        self.error = error
    }

    /// The process's own standard input, output and error.
    package static let process = StandardStreams(input: 0, output: 1, error: 2)
}

/// Reads and writes whole buffers on a descriptor, retrying on `EINTR` and short writes.
enum FileDescriptorIO {
    enum ReadResult: Equatable {
        case complete([UInt8])
        /// More than `limit` bytes were available; reading stopped there.
        case tooLarge
        case failed(errno: Int32)
    }

    /// Reads until end of file, but never more than `limit + 1` bytes.
    static func readAll(_ fd: Int32, limit: Int) -> ReadResult {
        var bytes: [UInt8] = []
        let chunk = 64 * 1024
        while true {
            let wanted = min(chunk, limit + 1 - bytes.count)
            let oldCount = bytes.count
            bytes.append(contentsOf: repeatElement(0, count: wanted))
            let got = bytes.withUnsafeMutableBytes { buffer in
                read(fd, buffer.baseAddress! + oldCount, wanted)
            }
            if got < 0 {
                bytes.removeLast(wanted)
                if errno == EINTR { continue }
                return .failed(errno: errno)
            }
            bytes.removeLast(wanted - got)
            if got == 0 { return .complete(bytes) }
            if bytes.count > limit { return .tooLarge }
        }
    }

    /// Writes all of `bytes`; `false` if the descriptor refused (closed pipe, full disk).
    @discardableResult
    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                write(fd, buffer.baseAddress! + offset, bytes.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }
}
