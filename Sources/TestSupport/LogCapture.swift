import InMemoryLogging
import Logging

/// A logger at trace level whose lines a test can read back, to check that nothing
/// secret reaches a log line.
package struct LogCapture: Sendable {
    private let handler: InMemoryLogHandler
    /// The logger to pass to the code under test.
    package let logger: Logger

    /// Creates a capture.
    package init(label: String = "test") {
        var handler = InMemoryLogHandler()
        handler.logLevel = .trace
        self.handler = handler
        logger = Logger(label: label) { _ in handler }
    }

    /// Every captured line as text: level, message and metadata.
    package var lines: [String] {
        handler.entries.map { entry in
            let metadata = entry.metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            return "\(entry.level) \(entry.message) \(metadata)"
        }
    }

    /// The captured lines that contain any of `needles` (empty needles ignored).
    package func lines(containingAnyOf needles: [String]) -> [String] {
        let wanted = needles.filter { !$0.isEmpty }
        return lines.filter { line in wanted.contains { line.contains($0) } }
    }
}
