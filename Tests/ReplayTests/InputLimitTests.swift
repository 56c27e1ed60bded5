import Foundation
import Testing

/// Oversized, deeply nested, non-UTF-8 and otherwise hostile input through the built
/// executables: every process exits by itself (never by a signal), with one JSON response
/// carrying the expected status and stable error code, or, for input that is not an event
/// at all, exit status 2 with one error line and nothing on stdout. The small body-level
/// cases (duplicate keys, numbers as strings, expires_in out of range) are replay cases
/// in `events/` (`*-limit-*`).
@Suite("Input limits through the built executables")
struct InputLimitTests {
    @Test("no input makes a function exit by signal; each gets its stable answer")
    func limits() async throws {
        let backend = try ReplayBackend.embedded()
        defer { backend.cleanUp() }
        let cases = try await GeneratedEvents.limits()
        let scanner = SecretScanner.forEvents(cases.map(\.bytes))
        var tally = Tally()
        for limitCase in cases {
            let result = try await FunctionProcess.run(limitCase.function, event: limitCase.bytes, environment: backend.environment)
            try check(result, limitCase)
            tally.scan(result.stdout, source: "\(limitCase): stdout", with: scanner)
            tally.scan(result.stderr, source: "\(limitCase): stderr", with: scanner)
        }
        #expect(tally.findings.isEmpty, "leaks: \(tally.findings)")
        print("InputLimitTests: \(cases.count) generated limit cases through the built executables, 0 exits by signal; "
            + "\(tally.outputs) outputs, \(tally.bytes) bytes scanned, \(tally.findings.count) secret occurrences")
    }
}

/// Checks one run against what `limitCase` expects.
func check(_ result: FunctionProcess.Result, _ limitCase: GeneratedEvent, sourceLocation: SourceLocation = #_sourceLocation) throws {
    #expect(result.exitedNormally, "\(limitCase) was killed by signal \(result.status)", sourceLocation: sourceLocation)
    let lines = result.stdout.split(separator: "\n")
    switch limitCase.expected {
    case .badEvent:
        #expect(result.status == 2, "\(limitCase): exit \(result.status)", sourceLocation: sourceLocation)
        #expect(result.stdout.isEmpty, "\(limitCase): stdout \(result.stdout.prefix(200))", sourceLocation: sourceLocation)
        #expect(result.stderr.split(separator: "\n").contains { $0.contains(": error: ") }, "\(limitCase)", sourceLocation: sourceLocation)
    case .response(let status, let code):
        #expect(result.status == 0, "\(limitCase): exit \(result.status), \(result.stderr.suffix(300))", sourceLocation: sourceLocation)
        #expect(lines.count == 1, "\(limitCase): \(lines.count) lines on stdout", sourceLocation: sourceLocation)
        let response = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(limitCase)", sourceLocation: sourceLocation
        )
        #expect(response["statusCode"] as? Int == status, "\(limitCase): \(result.stdout.prefix(300))", sourceLocation: sourceLocation)
        let body = (response["body"] as? String).flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        if let code {
            #expect(body?["error"] as? String == code, "\(limitCase): \(result.stdout.prefix(300))", sourceLocation: sourceLocation)
            #expect((body?["message"] as? String)?.isEmpty == false, "\(limitCase)", sourceLocation: sourceLocation)
        }
    }
}
