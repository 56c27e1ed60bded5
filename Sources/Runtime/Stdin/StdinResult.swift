/// What a stdin-mode run writes and how it exits, computed without touching any
/// descriptor so tests can check it directly.
public struct StdinResult: Sendable, Equatable {
    /// The bytes for standard output: one JSON document and a newline, or nothing.
    public var output: [UInt8]
    /// One line (without newline) for standard error, or `nil`.
    public var errorLine: String?
    /// The process exit status: ``StdinRunner/exitSuccess``,
    /// ``StdinRunner/exitHandlerFailed`` or ``StdinRunner/exitBadEvent``.
    public var exitCode: Int32

    /// Creates a result.
    public init(output: [UInt8], errorLine: String?, exitCode: Int32) {
        self.output = output
        self.errorLine = errorLine
        self.exitCode = exitCode
    }
}
