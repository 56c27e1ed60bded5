import Foundation
import ArgumentParser
import PayPulseResponseMatching

/// `paypulse match-response EXPECTED [ACTUAL]`: checks a function's answer against its
/// expected file from `events/` with the replay tests' rule (``ResponseMatching``), for the
/// bundle proofs that run the functions outside `swift test`.
struct MatchResponseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "match-response",
        abstract: "Check a response against an expected file from events/ (exit 0 on a match, 1 otherwise).",
        discussion: #"The body is compared as JSON; an expected "<rfc3339>" matches any RFC 3339 time, "<any>" anything."#
    )

    @Argument(help: "The expected file (events/**/*.expected.json).") var expected: String
    @Argument(help: "The response, one JSON object; standard input when omitted or '-'.") var actual: String = "-"

    func run() throws {
        let expectedBytes = try Data(contentsOf: URL(fileURLWithPath: expected))
        let actualBytes = actual == "-"
            ? FileHandle.standardInput.readDataToEndOfFile()
            : try Data(contentsOf: URL(fileURLWithPath: actual))
        if let problem = ResponseMatching.mismatch(expected: expectedBytes, actual: String(decoding: actualBytes, as: UTF8.self)) {
            printToStandardError("\(expected): \(problem)")
            throw ExitCode.failure
        }
    }
}
