#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PayPulseCoding
import PayPulseTestSupport
import Testing

@testable import PayPulseHandlers
@testable import PayPulseRuntime

/// Records what the handler saw.
actor Seen {
    var requests: [APIRequest] = []
    func add(_ request: APIRequest) { requests.append(request) }
}

@Suite("Stdin runner")
struct StdinRunnerTests {
    struct Decoded: Decodable {
        var statusCode: Int
        var body: String
    }

    static func echo(_ seen: Seen) -> EventHandlers.HTTP {
        { request, _ in
            await seen.add(request)
            return .json(status: 200, .object(["path": .string(request.path), "method": .string(request.method)]))
        }
    }

    @Test("a sample event gives exactly one JSON line on stdout and exit 0")
    func oneLine() async throws {
        let seen = Seen()
        let result = await StdinRunner.process(
            input: try Samples.bytes("v2-post-gmail-tokens.json"), logger: LogCapture().logger,
            handler: EventHandlers(http: Self.echo(seen))
        )
        #expect(result.exitCode == StdinRunner.exitSuccess)
        #expect(result.errorLine == nil)
        #expect(result.output.last == UInt8(ascii: "\n"))
        #expect(result.output.filter { $0 == UInt8(ascii: "\n") }.count == 1)
        let decoded = try JSONDecoder().decode(Decoded.self, from: Data(result.output))
        #expect(decoded.statusCode == 200)
        #expect(decoded.body == #"{"method":"POST","path":"/v1/auth/gmail-tokens"}"#)
        #expect(await seen.requests.count == 1)
    }

    @Test("malformed input: one error line, nothing on stdout, exit 2", arguments: ["", "garbage", "{}", "[1]"])
    func malformed(text: String) async {
        let seen = Seen()
        let result = await StdinRunner.process(
            input: text.bytes, logger: LogCapture(label: "store-tokens").logger, handler: EventHandlers(http: Self.echo(seen))
        )
        #expect(result.exitCode == StdinRunner.exitBadEvent)
        #expect(result.output.isEmpty)
        let line = result.errorLine ?? ""
        #expect(line.hasPrefix("store-tokens: error: the event is not"))
        #expect(!line.contains("\n"))
        #expect(await seen.requests.isEmpty)
    }

    @Test("an event over 6 MB is refused before decoding")
    func tooLarge() async {
        let input = [UInt8](repeating: UInt8(ascii: " "), count: StdinRunner.maximumEventBytes + 1)
        let result = await StdinRunner.process(input: input, logger: LogCapture().logger, handler: EventHandlers(http: Self.echo(Seen())))
        #expect(result.exitCode == StdinRunner.exitBadEvent)
        #expect(result.errorLine?.contains("6291456 bytes") == true)
    }

    @Test("a body that is not base64 is answered 400 invalid_request without calling the handler", arguments: PayloadVersion.allCases)
    func invalidBase64(version: PayloadVersion) async throws {
        var event = try Samples.object(version == .v1 ? "v1-post-gmail-tokens.json" : "v2-post-gmail-tokens.json")
        event["body"] = .string("%%%")
        let seen = Seen()
        let result = await StdinRunner.process(input: event.bytes, logger: LogCapture().logger, handler: EventHandlers(http: Self.echo(seen)))
        #expect(result.exitCode == StdinRunner.exitSuccess)
        let expected = APIResponse.error(status: 400, code: "invalid_request", message: "the request body is not valid base64")
        #expect(result.output == expected.encoded(for: version) + [UInt8(ascii: "\n")])
        #expect(await seen.requests.isEmpty)
    }

    @Test("event kinds without a handler are rejected; scheduled handlers print or fail")
    func eventKinds() async throws {
        let scheduledEvent = try Samples.bytes("scheduled-event.json")
        let httpOnly = EventHandlers(http: Self.echo(Seen()))
        let refused = await StdinRunner.process(input: scheduledEvent, logger: LogCapture().logger, handler: httpOnly)
        #expect(refused.exitCode == StdinRunner.exitBadEvent)
        #expect(refused.errorLine?.contains("does not handle scheduled events") == true)

        let scheduledOnly = EventHandlers(scheduled: { event, _ in Array(#"{"detail_type":"\#(event.detailType)"}"#.utf8) })
        let printed = await StdinRunner.process(input: scheduledEvent, logger: LogCapture().logger, handler: scheduledOnly)
        #expect(printed.exitCode == StdinRunner.exitSuccess)
        #expect(printed.output == #"{"detail_type":"Scheduled Event"}"#.bytes + [UInt8(ascii: "\n")])

        let httpRefused = await StdinRunner.process(
            input: try Samples.bytes("v1-get-user-me.json"), logger: LogCapture().logger, handler: scheduledOnly
        )
        #expect(httpRefused.exitCode == StdinRunner.exitBadEvent)

        struct Boom: Error, CustomStringConvertible {
            var description: String { "upstream\nunavailable" }
        }
        let failing = EventHandlers(scheduled: { _, _ in throw Boom() })
        let failed = await StdinRunner.process(input: scheduledEvent, logger: LogCapture(label: "token-refresh").logger, handler: failing)
        #expect(failed.exitCode == StdinRunner.exitHandlerFailed)
        #expect(failed.output.isEmpty)
        #expect(failed.errorLine == "token-refresh: error: the scheduled handler failed: upstream unavailable")
    }

    @Test("logs name method, path and status but never headers, query or body")
    func logHygiene() async throws {
        var event = try Samples.object("v2-post-gmail-tokens.json")
        event.set("headers", .object(["Authorization": .string("Bearer eyJ.secret-jwt.sig")]))
        event["rawQueryString"] = .string("code=secret-query")
        event["isBase64Encoded"] = .bool(false)
        event["body"] = .string(#"{"refresh_token":"1//secret-refresh"}"#)
        let capture = LogCapture()
        let result = await StdinRunner.process(input: event.bytes, logger: capture.logger, handler: EventHandlers(http: Self.echo(Seen())))
        #expect(result.exitCode == 0)
        #expect(capture.lines(containingAnyOf: ["secret-jwt", "secret-query", "secret-refresh", "Bearer"]).isEmpty)
        #expect(capture.lines.contains { $0.contains("handled request") && $0.contains("status=200") && $0.contains("method=POST") })
    }

    @Test("end to end through pipes: stdin event in, one line out, logs and errors on stderr")
    func throughPipes() async throws {
        let event = try Samples.bytes("v1-delete-gmail-tokens.json")
        let good = try await Self.runThroughPipes(input: event, handler: EventHandlers(http: Self.echo(Seen())))
        #expect(good.exit == 0)
        #expect(good.stdout.filter { $0 == UInt8(ascii: "\n") }.count == 1)
        #expect(try JSONDecoder().decode(Decoded.self, from: Data(good.stdout)).body.contains("DELETE"))
        #expect(good.stderr.isEmpty)

        let bad = try await Self.runThroughPipes(input: "nope".bytes, handler: EventHandlers(http: Self.echo(Seen())))
        #expect(bad.exit == 2)
        #expect(bad.stdout.isEmpty)
        #expect(String(decoding: bad.stderr, as: UTF8.self) == "pipe-test: error: the event is not a JSON document\n")
    }

    /// Runs the real descriptor path with pipes standing in for 0, 1 and 2. The input is
    /// written up front, so it must fit the pipe buffer (64 KiB on Linux).
    static func runThroughPipes(input: [UInt8], handler: EventHandlers) async throws -> (exit: Int32, stdout: [UInt8], stderr: [UInt8]) {
        let stdin = try TestPipe(), stdout = try TestPipe(), stderr = try TestPipe()
        defer { [stdin, stdout, stderr].forEach { $0.closeAll() } }
        #expect(FileDescriptorIO.writeAll(stdin.write, input))
        stdin.closeWrite()
        let streams = StandardStreams(input: stdin.read, output: stdout.write, error: stderr.write)
        let exit = await StdinRunner.run(logger: Logger(label: "pipe-test") { _ in SwiftLogNoOpLogHandler() }, handler: handler, streams: streams)
        stdout.closeWrite()
        stderr.closeWrite()
        return (exit, try stdout.readToEnd(), try stderr.readToEnd())
    }
}
