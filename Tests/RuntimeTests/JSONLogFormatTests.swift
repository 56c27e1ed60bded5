import Logging
import PayPulseCoding
import PayPulseApp
import Testing

@testable import PayPulseHandlers
@testable import PayPulseRuntime

@Suite("JSON log lines and Lambda log settings")
struct JSONLogFormatTests {
    static let timestamp = LogTimestamp(millisecondsSinceEpoch: 1_795_000_000_123)

    @Test("one valid JSON object per event: timestamp, level, message, requestId, then metadata")
    func shape() throws {
        let line = LogFormat.json.render(
            timestamp: Self.timestamp, level: .notice, label: "store-tokens", message: "stored\n\"tokens\"\u{1}",
            metadata: [
                "requestId": "r-1", "status": "200", "reason": #"back\slash"#, "message": "clash",
                "list": .array(["a", "b"]), "nested": .dictionary(["k": "v"]),
            ]
        )
        #expect(!line.contains("\n"))
        #expect(
            line
                == #"{"timestamp":"2026-11-18T11:06:40.123Z","level":"INFO","message":"stored\n\"tokens\"\u0001","requestId":"r-1","list":["a","b"],"metadata.message":"clash","nested":{"k":"v"},"reason":"back\\slash","status":"200"}"#
        )
        let object = try #require(try JSONValue.parse(Array(line.utf8)).objectValue)
        #expect(object["message"] == .string("stored\n\"tokens\"\u{1}"))
        #expect(object["requestId"] == .string("r-1"))
        #expect(object["reason"] == .string(#"back\slash"#))
    }

    @Test("without a request id there is no requestId field")
    func noRequestID() throws {
        let line = LogFormat.json.render(timestamp: Self.timestamp, level: .info, label: "x", message: "m", metadata: [:])
        #expect(line == #"{"timestamp":"2026-11-18T11:06:40.123Z","level":"INFO","message":"m"}"#)
    }

    @Test(
        "swift-log levels map onto Lambda's names",
        arguments: [
            (Logger.Level.trace, "TRACE"), (.debug, "DEBUG"), (.info, "INFO"), (.notice, "INFO"), (.warning, "WARN"),
            (.error, "ERROR"), (.critical, "FATAL"),
        ]
    )
    func levelNames(level: Logger.Level, name: String) {
        #expect(LambdaLogLevel.name(of: level) == name)
        let line = LogFormat.json.render(timestamp: Self.timestamp, level: level, label: "x", message: "m", metadata: [:])
        #expect((try? JSONValue.parse(Array(line.utf8)))?["level"] == .string(name))
    }

    @Test("AWS_LAMBDA_LOG_LEVEL takes Lambda's names and wins over LOG_LEVEL")
    func lambdaLevel() throws {
        let cases: [(String, Logger.Level)] = [
            ("TRACE", .trace), ("DEBUG", .debug), ("INFO", .info), ("WARN", .warning), ("ERROR", .error), ("FATAL", .critical),
            ("warn", .warning), ("notice", .notice),
        ]
        for (name, level) in cases {
            let logged = try LoggingTests.logged(environment: ["AWS_LAMBDA_LOG_LEVEL": name, "LOG_LEVEL": "trace"])
            #expect(logged.logger.logLevel == level, "\(name)")
        }
        #expect(try LoggingTests.logged(environment: ["AWS_LAMBDA_LOG_LEVEL": " ", "LOG_LEVEL": "error"]).logger.logLevel == .error)

        let junk = try LoggingTests.logged(environment: ["AWS_LAMBDA_LOG_LEVEL": "LOUD", "LOG_LEVEL": "error"])
        #expect(junk.logger.logLevel == .info)
        #expect(junk.text.contains("AWS_LAMBDA_LOG_LEVEL is not a log level; using info"))
        #expect(junk.text.contains("allowed=TRACE,DEBUG,INFO,WARN,ERROR,FATAL"))
    }

    @Test("JSON in Lambda or when asked for; text locally or when asked for")
    func formatChoice() {
        #expect(LogSettings.fromEnvironment( [:]).format == .text)
        #expect(LogSettings.fromEnvironment( ["AWS_LAMBDA_FUNCTION_NAME": "store-tokens"]).format == .json)
        #expect(LogSettings.fromEnvironment( ["AWS_LAMBDA_FUNCTION_NAME": "store-tokens", "AWS_LAMBDA_LOG_FORMAT": "Text"]).format == .text)
        #expect(LogSettings.fromEnvironment( ["AWS_LAMBDA_LOG_FORMAT": "JSON"]).format == .json)
        #expect(LogSettings.fromEnvironment( ["AWS_LAMBDA_LOG_FORMAT": "json "]).format == .json)
    }

    @Test("a JSON logger writes parseable lines; handler metadata and requestId included")
    func jsonLogger() throws {
        let pipe = try TestPipe()
        defer { pipe.closeAll() }
        var logger = LogSetup.makeLogger(
            label: "token-refresh", settings: LogSettings(level: LogSettings.fromEnvironment(["AWS_LAMBDA_LOG_LEVEL": "DEBUG"]).level, format: .json),
            fileDescriptor: pipe.write
        )
        logger[metadataKey: "function"] = "token-refresh"
        logger.trace("hidden")
        logger.debug("plain", metadata: ["n": "1"])
        RequestScope.$requestID.withValue("req-9") {
            logger.error("during", metadata: ["count": "\(3)"])
        }
        pipe.closeWrite()
        let lines = String(decoding: try pipe.readToEnd(), as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 2)
        let objects = try lines.map { try #require(try JSONValue.parse(Array($0.utf8)).objectValue) }
        #expect(objects.map { $0["level"] } == [.string("DEBUG"), .string("ERROR")])
        #expect(objects.map { $0["requestId"] } == [nil, .string("req-9")])
        #expect(objects.map { $0["function"] } == [.string("token-refresh"), .string("token-refresh")])
        #expect(objects.last?["count"] == .string("3"))
    }
}
