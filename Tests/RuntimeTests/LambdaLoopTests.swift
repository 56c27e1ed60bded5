#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Logging
import PayPulseCoding
import PayPulseTestSupport
import Testing

@testable import PayPulseHandlers
@testable import PayPulseRuntime

/// Serialized: invocations export `_X_AMZN_TRACE_ID`, a process-wide variable.
@Suite("Lambda Runtime API loop", .serialized)
struct LambdaLoopTests {
    /// What a scheduled handler saw of its invocation.
    actor Observed {
        var contexts: [InvocationContext] = []
        var traceIDs: [String?] = []
        func add(_ context: InvocationContext, _ traceID: String?) {
            contexts.append(context)
            traceIDs.append(traceID)
        }
    }

    static let echoHTTP: EventHandlers.HTTP = { request, _ in .json(status: 200, .object(["path": .string(request.path)])) }

    @Test("one loop serves several invocations, answering each under its own request id")
    func severalInvocations() async throws {
        let api = ScriptedRuntimeAPI([
            LambdaInvocation(requestID: "r-1", event: try Samples.bytes("v2-get-user-me.json")),
            LambdaInvocation(requestID: "r-2", event: try Samples.bytes("v1-get-user-me.json")),
            LambdaInvocation(requestID: "r-3", event: try Samples.bytes("v2-post-gmail-tokens.json")),
        ])
        try await LambdaLoop.run(api: api, handler: EventHandlers(http: Self.echoHTTP), logger: LogCapture().logger, maxInvocations: 3)
        let posts = await api.posts
        #expect(posts.count == 3)
        for (post, id) in zip(posts, ["r-1", "r-2", "r-3"]) {
            guard case .response(let requestID, let body) = post else {
                Issue.record("expected a response, got \(post)")
                continue
            }
            #expect(requestID == id)
            let object = try #require(try JSONValue.parse(body).objectValue)
            #expect(object["statusCode"] == .integer(200))
        }
    }

    @Test("the handler is passed the request id, the deadline and the trace id of its invocation only")
    func context() async throws {
        let observed = Observed()
        let handlers = EventHandlers(scheduled: { _, context in
            await observed.add(context, getenv(TraceEnvironment.variable).map { String(cString: $0) })
            return Array("{}".utf8)
        })
        // Read before the wall clock the deadline is set from, so a delay of the test between
        // the two readings cannot move the deadline below the lower bound checked below.
        let before = ContinuousClock.now
        let wallNow = LogTimestamp.now().millisecondsSinceEpoch
        let event = try Samples.bytes("scheduled-event.json")
        let api = ScriptedRuntimeAPI([
            LambdaInvocation(
                requestID: "with-trace", deadlineEpochMilliseconds: wallNow + 5_000,
                invokedFunctionARN: "arn:aws:lambda:us-east-1:123456789012:function:token-refresh",
                traceID: "Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1", event: event
            ),
            LambdaInvocation(requestID: "no-trace", event: event),
        ])
        try await LambdaLoop.run(api: api, handler: handlers, logger: LogCapture().logger, maxInvocations: 2)

        let contexts = await observed.contexts
        #expect(contexts.map(\.requestID) == ["with-trace", "no-trace"])
        #expect(contexts.map(\.traceID) == ["Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1", nil])
        let deadline = try #require(contexts.first?.deadline)
        // 5 s from the wall-clock reading, give or take the time the test took.
        #expect(deadline > before.advanced(by: .milliseconds(4_000)))
        #expect(deadline < ContinuousClock.now.advanced(by: .milliseconds(5_100)))
        #expect(contexts.last?.deadline == nil)
        #expect(await observed.traceIDs == ["Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1", nil])
        #expect(RequestScope.requestID == nil)
        #expect(await api.posts.count == 2)
    }

    @Test("a failing handler posts Runtime.HandlerFailed to /error and the loop goes on")
    func handlerFailure() async throws {
        struct Boom: Error {}
        let handlers = EventHandlers(scheduled: { event, _ in
            if (try? JSONValue.parse(event.detail))?["fail"] == .bool(true) { throw Boom() }
            return Array("{\"ok\":true}".utf8)
        })
        var failing = try Samples.object("scheduled-event.json")
        failing.set("detail.fail", .bool(true))
        let api = ScriptedRuntimeAPI([
            LambdaInvocation(requestID: "fails", event: JSONValue.object(failing).jsonBytes),
            LambdaInvocation(requestID: "works", event: try Samples.bytes("scheduled-event.json")),
        ])
        try await LambdaLoop.run(api: api, handler: handlers, logger: LogCapture().logger, maxInvocations: 2)
        let posts = await api.posts
        #expect(posts.count == 2)
        guard case .error(let requestID, let error) = posts.first else {
            Issue.record("expected an error, got \(String(describing: posts.first))")
            return
        }
        #expect(requestID == "fails")
        #expect(error.errorType == "Runtime.HandlerFailed")
        #expect(error.errorMessage.hasPrefix("the scheduled handler failed"))
        #expect(posts.last == .response(requestID: "works", body: Array("{\"ok\":true}".utf8)))
    }

    @Test("a malformed event posts Runtime.InvalidEvent and the next event is still served", arguments: ["", "garbage", "{}", "[1]"])
    func malformedEvent(text: String) async throws {
        let api = ScriptedRuntimeAPI([
            LambdaInvocation(requestID: "bad", event: Array(text.utf8)),
            LambdaInvocation(requestID: "good", event: try Samples.bytes("v2-get-user-me.json")),
        ])
        try await LambdaLoop.run(api: api, handler: EventHandlers(http: Self.echoHTTP), logger: LogCapture().logger, maxInvocations: 2)
        let posts = await api.posts
        #expect(posts.count == 2)
        guard case .error(let requestID, let error) = posts.first else {
            Issue.record("expected an error, got \(String(describing: posts.first))")
            return
        }
        #expect(requestID == "bad")
        #expect(error.errorType == "Runtime.InvalidEvent")
        #expect(error.errorMessage.hasPrefix("the event is not"))
        guard case .response("good", _) = posts.last else {
            Issue.record("expected a response to good, got \(String(describing: posts.last))")
            return
        }
    }

    @Test("an event of a kind the function does not serve is an invalid event")
    func wrongKind() async throws {
        let api = ScriptedRuntimeAPI([LambdaInvocation(requestID: "sched", event: try Samples.bytes("scheduled-event.json"))])
        try await LambdaLoop.run(api: api, handler: EventHandlers(http: Self.echoHTTP), logger: LogCapture().logger, maxInvocations: 1)
        #expect(
            await api.posts
                == [.error(requestID: "sched", LambdaError(errorType: "Runtime.InvalidEvent", errorMessage: "this executable does not handle scheduled events"))]
        )
    }

    @Test("a response the API refuses (4xx) is logged and the loop goes on; a dead API ends it")
    func refusedResponse() async throws {
        let api = ScriptedRuntimeAPI(
            [
                LambdaInvocation(requestID: "a", event: try Samples.bytes("v2-get-user-me.json")),
                LambdaInvocation(requestID: "b", event: try Samples.bytes("v2-get-user-me.json")),
            ],
            refuseResponsesWith: .unexpectedStatus(413, call: "invocation/response")
        )
        let capture = LogCapture()
        // No maxInvocations: the loop serves both, then ends when the API fails.
        await #expect(throws: ScriptedRuntimeAPI.Exhausted.self) {
            try await LambdaLoop.run(api: api, handler: EventHandlers(http: Self.echoHTTP), logger: capture.logger)
        }
        #expect(capture.lines(containingAnyOf: ["the Runtime API refused the outcome"]).count == 2)

        let dead = ScriptedRuntimeAPI(
            [LambdaInvocation(requestID: "c", event: try Samples.bytes("v2-get-user-me.json"))],
            refuseResponsesWith: .unexpectedStatus(500, call: "invocation/response")
        )
        await #expect(throws: LambdaRuntimeAPIError.unexpectedStatus(500, call: "invocation/response")) {
            try await LambdaLoop.run(api: dead, handler: EventHandlers(http: Self.echoHTTP), logger: capture.logger, maxInvocations: 5)
        }
    }

    @Test("a function invoked directly gets every payload as it came, API Gateway-shaped or not")
    func directInvocations() async throws {
        let handlers = EventHandlers(direct: { payload, context in Array("{\"echo\":\(payload.count),\"id\":\"\(context.requestID ?? "")\"}".utf8) })
        let api = ScriptedRuntimeAPI([
            LambdaInvocation(requestID: "d-1", event: Array(#"{"user_id":"u-1"}"#.utf8)),
            LambdaInvocation(requestID: "d-2", event: try Samples.bytes("v2-get-user-me.json")),
        ])
        try await LambdaLoop.run(api: api, handler: handlers, logger: LogCapture().logger, maxInvocations: 2)
        let posts = await api.posts
        #expect(posts.first == .response(requestID: "d-1", body: Array(#"{"echo":17,"id":"d-1"}"#.utf8)))
        guard case .response("d-2", let body) = posts.last else {
            Issue.record("expected a response to d-2, got \(String(describing: posts.last))")
            return
        }
        #expect(String(decoding: body, as: UTF8.self).hasSuffix(#","id":"d-2"}"#))
    }

    @Test("a start-up failure goes to /init/error as Runtime.InitError")
    func initError() async {
        let api = ScriptedRuntimeAPI([])
        await LambdaLoop.reportInitError("start-up failed: PAYPULSE_STORE must be embedded or aws", api: api, logger: LogCapture().logger)
        #expect(
            await api.posts
                == [.initError(LambdaError(errorType: "Runtime.InitError", errorMessage: "start-up failed: PAYPULSE_STORE must be embedded or aws"))]
        )
    }

    @Test("every line logged during an invocation carries its requestId, even from a captured logger")
    func requestIDInLogs() async throws {
        let pipe = try TestPipe()
        defer { pipe.closeAll() }
        let logger = LogSetup.makeLogger(label: "store-tokens", settings: LogSettings(format: .json), fileDescriptor: pipe.write)
        // Adapters log through the process logger they captured, not the context's.
        let handlers = EventHandlers(http: { request, _ in
            logger.info("inside handler")
            return .json(status: 200, .object(["path": .string(request.path)]))
        })
        let api = ScriptedRuntimeAPI([
            LambdaInvocation(requestID: "id-1", event: try Samples.bytes("v2-get-user-me.json")),
            LambdaInvocation(requestID: "id-2", event: Array("garbage".utf8)),
        ])
        try await LambdaLoop.run(api: api, handler: handlers, logger: logger, maxInvocations: 2)
        logger.info("after the loop")
        pipe.closeWrite()
        let lines = String(decoding: try pipe.readToEnd(), as: UTF8.self).split(separator: "\n")
        let objects = try lines.map { try #require(try JSONValue.parse(Array($0.utf8)).objectValue) }
        #expect(objects.map { $0["message"]?.stringValue } == ["inside handler", "handled request", "rejected event", "after the loop"])
        #expect(objects.map { $0["requestId"]?.stringValue } == ["id-1", "id-1", "id-2", nil])
        #expect(objects[2]["level"] == .string("WARN"))
    }
}
