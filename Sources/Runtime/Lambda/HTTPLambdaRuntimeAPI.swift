import PayPulseTransport

/// The Runtime API over HTTP at `http://$AWS_LAMBDA_RUNTIME_API/2018-06-01/runtime`.
package struct HTTPLambdaRuntimeAPI: LambdaRuntimeAPI {
    private let base: String
    private let transport: any HTTPTransport
    /// Posts go to a local endpoint that answers at once; the limit only stops a hung
    /// API from freezing the process.
    private let postTimeout: Duration

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - endpoint: `host:port`, the value of `AWS_LAMBDA_RUNTIME_API`.
    ///   - transport: The HTTP client.
    ///   - postTimeout: The limit for each post.
    package init(endpoint: String, transport: any HTTPTransport, postTimeout: Duration = .seconds(30)) {
        self.base = "http://\(endpoint)/2018-06-01/runtime"
        self.transport = transport
        self.postTimeout = postTimeout
    }

    package func nextInvocation() async throws -> LambdaInvocation {
        // No total timeout: the API holds the request until an event arrives, which can
        // take as long as the function stays idle (the process is frozen meanwhile).
        let request = HTTPRequest(method: "GET", url: "\(base)/invocation/next", timeout: nil)
        let response = try await transport.execute(request)
        guard response.status == 200 else { throw LambdaRuntimeAPIError.unexpectedStatus(response.status, call: "invocation/next") }
        guard let requestID = response.headers["Lambda-Runtime-Aws-Request-Id"], !requestID.isEmpty else {
            throw LambdaRuntimeAPIError.missingRequestID
        }
        return LambdaInvocation(
            requestID: requestID,
            deadlineEpochMilliseconds: response.headers["Lambda-Runtime-Deadline-Ms"].flatMap { Int64($0) },
            invokedFunctionARN: response.headers["Lambda-Runtime-Invoked-Function-Arn"],
            traceID: response.headers["Lambda-Runtime-Trace-Id"],
            event: response.body
        )
    }

    package func postResponse(requestID: String, body: [UInt8]) async throws {
        try await post("invocation/\(Self.pathSegment(requestID))/response", call: "invocation/response", body: body, headers: [:])
    }

    package func postError(requestID: String, error: LambdaError) async throws {
        try await post(
            "invocation/\(Self.pathSegment(requestID))/error", call: "invocation/error", body: error.jsonBody, headers: Self.errorHeaders(error))
    }

    package func postInitError(_ error: LambdaError) async throws {
        try await post("init/error", call: "init/error", body: error.jsonBody, headers: Self.errorHeaders(error))
    }

    private func post(_ path: String, call: String, body: [UInt8], headers: HTTPHeaders) async throws {
        let request = HTTPRequest(method: "POST", url: "\(base)/\(path)", headers: headers, body: body, timeout: postTimeout)
        let response = try await transport.execute(request)
        // The API answers 202 Accepted; any 2xx is taken as accepted.
        guard (200..<300).contains(response.status) else {
            throw LambdaRuntimeAPIError.unexpectedStatus(response.status, call: call)
        }
    }

    private static func errorHeaders(_ error: LambdaError) -> HTTPHeaders {
        ["Content-Type": "application/json", "Lambda-Runtime-Function-Error-Type": error.errorType]
    }

    /// The request id percent-encoded outside RFC 3986's unreserved set, so an odd id
    /// cannot change the path (ids are UUIDs in practice).
    static func pathSegment(_ requestID: String) -> String {
        var result = ""
        for byte in requestID.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                result += "%" + (hex.count == 1 ? "0" : "") + hex
            }
        }
        return result
    }
}
