#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseCoding
import PayPulseTestSupport
import PayPulseTransport
import Testing

@testable import PayPulseHandlers
@testable import PayPulseRuntime

@Suite("HTTP Runtime API client")
struct HTTPLambdaRuntimeAPITests {
    @Test("next, response, error and init error use the exact paths, headers and bodies")
    func exchange() async throws {
        let event = try Samples.bytes("scheduled-event.json")
        let server = try ScriptedHTTPServer { index, _ in
            switch index {
            case 0:
                .respond(
                    status: 200,
                    headers: [
                        "Lambda-Runtime-Aws-Request-Id": "8476a536-e9f4-11e8-9739-2dfe598c3fcd",
                        "Lambda-Runtime-Deadline-Ms": "1542409706888",
                        "Lambda-Runtime-Invoked-Function-Arn": "arn:aws:lambda:us-east-2:123456789012:function:token-refresh",
                        "Lambda-Runtime-Trace-Id": "Root=1-5bef4de7-ad49b0e87f6ef6c87fc2e700;Parent=9a9197af755a6419;Sampled=1",
                        "Content-Type": "application/json",
                    ],
                    body: String(decoding: event, as: UTF8.self)
                )
            default: .respond(status: 202, body: #"{"status":"OK"}"#)
            }
        }
        defer { server.stop() }
        let api = HTTPLambdaRuntimeAPI(endpoint: "127.0.0.1:\(server.port)", transport: CurlHTTPClient())

        let invocation = try await api.nextInvocation()
        #expect(
            invocation
                == LambdaInvocation(
                    requestID: "8476a536-e9f4-11e8-9739-2dfe598c3fcd", deadlineEpochMilliseconds: 1_542_409_706_888,
                    invokedFunctionARN: "arn:aws:lambda:us-east-2:123456789012:function:token-refresh",
                    traceID: "Root=1-5bef4de7-ad49b0e87f6ef6c87fc2e700;Parent=9a9197af755a6419;Sampled=1", event: event
                )
        )
        try await api.postResponse(requestID: invocation.requestID, body: Array(#"{"ok":true}"#.utf8))
        try await api.postError(
            requestID: invocation.requestID, error: LambdaError(errorType: "Runtime.HandlerFailed", errorMessage: "said \"no\"\ntwice")
        )
        try await api.postInitError(LambdaError(errorType: "Runtime.InitError", errorMessage: "start-up failed"))

        let requests = server.requests
        #expect(requests.map { "\($0.method) \($0.target)" } == [
            "GET /2018-06-01/runtime/invocation/next",
            "POST /2018-06-01/runtime/invocation/8476a536-e9f4-11e8-9739-2dfe598c3fcd/response",
            "POST /2018-06-01/runtime/invocation/8476a536-e9f4-11e8-9739-2dfe598c3fcd/error",
            "POST /2018-06-01/runtime/init/error",
        ])
        guard requests.count == 4 else { return }
        #expect(requests[1].body == Array(#"{"ok":true}"#.utf8))
        #expect(requests[1].headers["lambda-runtime-function-error-type"] == nil)
        #expect(String(decoding: requests[2].body, as: UTF8.self) == #"{"errorType":"Runtime.HandlerFailed","errorMessage":"said \"no\"\ntwice"}"#)
        #expect(requests[2].headers["lambda-runtime-function-error-type"] == "Runtime.HandlerFailed")
        #expect(requests[2].headers["content-type"] == "application/json")
        #expect(try JSONValue.parse(requests[2].body)["errorMessage"] == .string("said \"no\"\ntwice"))
        #expect(String(decoding: requests[3].body, as: UTF8.self) == #"{"errorType":"Runtime.InitError","errorMessage":"start-up failed"}"#)
        #expect(requests[3].headers["lambda-runtime-function-error-type"] == "Runtime.InitError")
    }

    @Test("out-of-protocol answers are errors: no request id, a 500 on a post")
    func protocolErrors() async throws {
        let server = try ScriptedHTTPServer { index, _ in
            index == 0 ? .respond(status: 200, body: "{}") : .respond(status: 500)
        }
        defer { server.stop() }
        let api = HTTPLambdaRuntimeAPI(endpoint: "127.0.0.1:\(server.port)", transport: CurlHTTPClient())
        await #expect(throws: LambdaRuntimeAPIError.missingRequestID) { try await api.nextInvocation() }
        await #expect(throws: LambdaRuntimeAPIError.unexpectedStatus(500, call: "invocation/response")) {
            try await api.postResponse(requestID: "x", body: [])
        }
        #expect(HTTPLambdaRuntimeAPI.pathSegment("a/b c") == "a%2Fb%20c")
    }
}

/// In the serialized loop suite: the loop exports the process-wide trace variable.
extension LambdaLoopTests {
    @Test("a loop over HTTP: a malformed event gets /error, the next one /response")
    func loopOverHTTP() async throws {
        let server = try ScriptedHTTPServer { index, _ in
            switch index {
            case 0: .respond(status: 200, headers: ["Lambda-Runtime-Aws-Request-Id": "bad-1"], body: "garbage")
            case 2: .respond(status: 200, headers: ["Lambda-Runtime-Aws-Request-Id": "good-2"], body: #"{"detail-type":"Scheduled Event","source":"aws.events","detail":{}}"#)
            default: .respond(status: 202)
            }
        }
        defer { server.stop() }
        let api = HTTPLambdaRuntimeAPI(endpoint: "127.0.0.1:\(server.port)", transport: CurlHTTPClient())
        let handlers = EventHandlers(scheduled: { _, _ in Array("[]".utf8) })
        try await LambdaLoop.run(api: api, handler: handlers, logger: LogCapture().logger, maxInvocations: 2)
        let requests = server.requests
        #expect(requests.map(\.target) == [
            "/2018-06-01/runtime/invocation/next", "/2018-06-01/runtime/invocation/bad-1/error",
            "/2018-06-01/runtime/invocation/next", "/2018-06-01/runtime/invocation/good-2/response",
        ])
        #expect(requests.count == 4 && requests[1].headers["lambda-runtime-function-error-type"] == "Runtime.InvalidEvent")
        #expect(requests.count == 4 && requests[3].body == Array("[]".utf8))
    }
}
