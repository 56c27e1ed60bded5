#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Logging
import PayPulseApp
import Testing

@testable import PayPulseHandlers
@testable import PayPulseRuntime

@Suite("Logging")
struct LoggingTests {
    @Test("LOG_LEVEL names every swift-log level, in any case, blanks ignored")
    func levelNames() {
        for level in Logger.Level.allCases {
            #expect(LogSettings.level(named: level.rawValue) == level)
            #expect(LogSettings.level(named: " \(level.rawValue.uppercased())\n") == level)
        }
        for junk in ["", "verbose", "warn", "5", "in fo"] {
            #expect(LogSettings.level(named: junk) == nil, "\(junk)")
        }
    }

    @Test("the logger takes its level from LOG_LEVEL, info by default, and warns about junk")
    func loggerLevel() throws {
        #expect(try Self.logged(environment: [:]).logger.logLevel == .info)
        #expect(try Self.logged(environment: ["LOG_LEVEL": "debug"]).logger.logLevel == .debug)
        let quiet = try Self.logged(environment: ["LOG_LEVEL": "ERROR"]) { $0.warning("hidden") }
        #expect(quiet.logger.logLevel == .error)
        #expect(quiet.text.isEmpty)

        let junk = try Self.logged(environment: ["LOG_LEVEL": "loud"])
        #expect(junk.logger.logLevel == .info)
        #expect(junk.text.contains(" warning runtime-test: LOG_LEVEL is not a log level; using info "))
        #expect(junk.text.contains("value=loud"))
    }

    @Test("text lines: timestamp level label: message, then sorted, quoted metadata, one line")
    func textFormat() {
        let line = LogFormat.text.render(
            timestamp: LogTimestamp(millisecondsSinceEpoch: 1_795_000_000_123), level: .notice, label: "store-tokens",
            message: "stored\ntokens",
            metadata: ["status": "200", "path": "/v1/auth/gmail-tokens", "reason": "two words", "q": #"a"b\c"#, "empty": ""]
        )
        #expect(
            line
                == #"2026-11-18T11:06:40.123Z notice store-tokens: stored\ntokens empty="" path=/v1/auth/gmail-tokens q="a\"b\\c" reason="two words" status=200"#
        )
    }

    @Test(
        "timestamps are RFC 3339 UTC with milliseconds",
        arguments: [
            (Int64(0), "1970-01-01T00:00:00.000Z"),
            (951_782_400_000, "2000-02-29T00:00:00.000Z"),
            (1_795_000_000_123, "2026-11-18T11:06:40.123Z"),
            (-1, "1969-12-31T23:59:59.999Z"),
        ]
    )
    func timestamps(milliseconds: Int64, expected: String) {
        #expect(LogTimestamp(millisecondsSinceEpoch: milliseconds).rfc3339 == expected)
    }

    @Test("the handler writes whole lines with merged metadata to its descriptor")
    func handlerLines() throws {
        let result = try Self.logged(environment: ["LOG_LEVEL": "trace"]) { logger in
            var logger = logger
            logger[metadataKey: "function"] = "user-profile"
            logger.trace("first", metadata: ["n": "1"])
            logger.error("second", metadata: ["function": "override"])
        }
        let lines = result.text.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.hasSuffix(" trace runtime-test: first function=user-profile n=1") == true)
        #expect(lines.last?.hasSuffix(" error runtime-test: second function=override") == true)
    }

    /// A logger from `LogSetup` writing into a pipe, and what it wrote while `body` ran.
    static func logged(environment: [String: String], _ body: (Logger) -> Void = { _ in }) throws -> (logger: Logger, text: String) {
        let pipe = try TestPipe()
        defer { pipe.closeAll() }
        let settings = LogSettings.fromEnvironment(environment)
        let logger = LogSetup.makeLogger(label: "runtime-test", settings: LogSettings(level: settings.level, format: .text, rejected: settings.rejected), fileDescriptor: pipe.write)
        body(logger)
        pipe.closeWrite()
        return (logger, String(decoding: try pipe.readToEnd(), as: UTF8.self))
    }
}
