/// Splits a fuzz input at its first newline: seeds keep a short header line (a content
/// type, a status line) readable in front of the bytes under test.
package struct SplitInput: Sendable {
    /// The text before the first newline; `nil` when the input has no newline.
    package let firstLine: String?
    /// Everything after the first newline, or the whole input when there is none.
    package let rest: [UInt8]

    /// Splits `bytes`.
    package init(_ bytes: [UInt8]) {
        if let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) {
            firstLine = String(decoding: bytes[..<newline], as: UTF8.self)
            rest = Array(bytes[(newline + 1)...])
        } else {
            firstLine = nil
            rest = bytes
        }
    }
}

extension Array where Element == UInt8 {
    /// Whether `run` occurs in these bytes as a contiguous run; compares bytes, so a NUL is
    /// an ordinary byte (Foundation's `String.contains` stops at one).
    package func containsRun(_ run: [UInt8]) -> Bool {
        guard !run.isEmpty else { return true }
        guard run.count <= count else { return false }
        return (0...(count - run.count)).contains { start in self[start..<(start + run.count)].elementsEqual(run) }
    }
}
