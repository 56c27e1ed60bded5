import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A fault-injecting HTTP/1.1 proxy on 127.0.0.1, placed between our clients and a peer
/// (moto_server, ``FakeGoogleServer``): point a client's endpoint at ``url`` and the proxy
/// forwards each request to the peer, unless its ``FaultPlan`` scripts a fault for it
/// (latency, 500/503, throttling, a reset before or after forwarding, a truncated answer,
/// a stall). It counts requests per operation, so a fault-free run tells a handler's call
/// sequence.
///
/// Each client connection is served on its own thread, where blocking is fine; the peer is
/// reached over a fresh connection per request.
package final class FaultProxy: @unchecked Sendable {
    /// Whose error answers the proxy imitates when it answers a fault itself.
    package enum Dialect: Sendable {
        /// AWS JSON services: `{"__type": ..., "message": ...}`, throttling as HTTP 400.
        case aws
        /// Google's OAuth endpoints: `{"error": ..., "error_description": ...}`, throttling as 429.
        case google
    }

    /// `http://127.0.0.1:<port>`.
    package var url: String { "http://127.0.0.1:\(port)" }
    /// The port it listens on.
    package let port: Int
    /// The script and journal (possibly shared with other proxies).
    package let plan: FaultPlan
    /// The name records carry, e.g. `aws`.
    package let name: String

    private let dialect: Dialect
    private let upstreamHost: String
    private let upstreamPort: Int
    private let listener: LoopbackListener

    /// Starts listening on a free loopback port.
    /// - Parameters:
    ///   - upstream: the peer, `http://127.0.0.1:<port>` (a path is ignored).
    ///   - dialect: the peer's error format.
    ///   - plan: the script to follow; share one between proxies to number requests together.
    ///   - name: what ``FaultPlan/Record/proxy`` says.
    package init(upstream: String, dialect: Dialect, plan: FaultPlan = FaultPlan(), name: String? = nil) throws {
        guard let (host, port) = Self.hostAndPort(upstream) else { throw FaultProxyError(message: "upstream must be http://<ipv4>:<port>, got \(upstream)") }
        upstreamHost = host
        upstreamPort = port
        self.dialect = dialect
        self.plan = plan
        self.name = name ?? (dialect == .aws ? "aws" : "google")
        listener = try LoopbackListener()
        self.port = listener.port
        listener.start { [self] fd in serve(fd) }
    }

    deinit { stop() }

    /// Stops accepting and ends every connection, stalled ones included. Idempotent.
    package func stop() { listener.stop() }

    /// Serves one client connection; returns how to end it (the listener runs that under its
    /// lock, so `stop()` never shuts down a reused descriptor).
    private func serve(_ fd: Int32) -> () -> Void {
        let client = ProxySocket(fd: fd)
        let reset = relay(client)
        return reset ? { client.reset() } : { client.close() }
    }

    /// Relays the client's requests until the connection ends.
    /// - Returns: whether the connection must end with a reset rather than a close.
    private func relay(_ client: ProxySocket) -> Bool {
        while let request = client.readMessage(isResponse: false) {
            let (index, fault) = plan.arrive(proxy: name, operation: Self.operation(of: request))
            switch fault {
            case nil:
                guard let answer = forward(request, index: index), client.write(answer.serialized(connection: "keep-alive")) else { return false }
            case .latency(let delay):
                Thread.sleep(forTimeInterval: Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18)
                guard let answer = forward(request, index: index), client.write(answer.serialized(connection: "keep-alive")) else { return false }
            case .status(let status):
                guard client.write(errorAnswer(status: status, throttling: false).serialized(connection: "keep-alive")) else { return false }
            case .throttle:
                guard client.write(errorAnswer(status: dialect == .aws ? 400 : 429, throttling: true).serialized(connection: "keep-alive")) else { return false }
            case .resetBeforeForward:
                return true
            case .resetAfterForward:
                _ = forward(request, index: index)
                return true
            case .truncate:
                guard let answer = forward(request, index: index) else { return false }
                let cut = ProxyMessage(startLine: answer.startLine, headers: answer.headers, body: Array(answer.body.prefix(answer.body.count / 2)))
                _ = client.write(cut.serialized(connection: "close", announced: answer.body.count + 64))
                return false
            case .stall:
                client.waitUntilPeerCloses { listener.isStopped }
                return false
            case .stallAfterForward:
                _ = forward(request, index: index)
                client.waitUntilPeerCloses { listener.isStopped }
                return false
            case .deny:
                guard client.write(deniedAnswer().serialized(connection: "keep-alive")) else { return false }
            case .emptyListing:
                guard client.write(Self.emptyListing(of: Self.operation(of: request)).serialized(connection: "keep-alive")) else { return false }
            case .hold(let gate):
                gate.pass()
                guard let answer = forward(request, index: index), client.write(answer.serialized(connection: "keep-alive")) else { return false }
            }
        }
        return false
    }

    /// Sends `request` to the peer over a new connection and reads the whole answer.
    private func forward(_ request: ProxyMessage, index: Int) -> ProxyMessage? {
        guard let upstream = ProxySocket.connect(host: upstreamHost, port: upstreamPort) else { return nil }
        defer { upstream.close() }
        guard upstream.write(request.serialized(connection: "close")),
              let answer = upstream.readMessage(isResponse: true), let status = answer.status else { return nil }
        plan.answered(index, status: status)
        return answer
    }

    /// The answer a peer of this dialect gives when failing or throttling.
    private func errorAnswer(status: Int, throttling: Bool) -> ProxyMessage {
        let reason = throttling ? (dialect == .aws ? "Bad Request" : "Too Many Requests") : (status == 503 ? "Service Unavailable" : "Internal Server Error")
        let body: String
        var headers: [(name: String, value: String)]
        switch dialect {
        case .aws:
            let type = throttling ? "ThrottlingException" : (status == 503 ? "ServiceUnavailable" : "InternalFailure")
            let message = throttling ? "Rate exceeded" : "Injected fault"
            body = #"{"__type":"\#(type)","message":"\#(message)"}"#
            headers = [("Content-Type", "application/x-amz-json-1.1"), ("X-Amzn-ErrorType", type)]
        case .google:
            body = throttling
                ? #"{"error":"rate_limit_exceeded","error_description":"Rate limit exceeded."}"#
                : #"{"error":"internal_failure","error_description":"Backend Error"}"#
            headers = [("Content-Type", "application/json; charset=utf-8")]
        }
        return ProxyMessage(startLine: "HTTP/1.1 \(status) \(reason)", headers: headers, body: Array(body.utf8))
    }

    /// The answer a peer of this dialect gives a caller without permission.
    private func deniedAnswer() -> ProxyMessage {
        switch dialect {
        case .aws:
            let body = #"{"__type":"AccessDeniedException","message":"User is not authorized to perform this action (injected)"}"#
            return ProxyMessage(
                startLine: "HTTP/1.1 400 Bad Request", headers: [("Content-Type", "application/x-amz-json-1.1"), ("X-Amzn-ErrorType", "AccessDeniedException")],
                body: Array(body.utf8)
            )
        case .google:
            let body = #"{"error":"access_denied","error_description":"Forbidden."}"#
            return ProxyMessage(startLine: "HTTP/1.1 403 Forbidden", headers: [("Content-Type", "application/json; charset=utf-8")], body: Array(body.utf8))
        }
    }

    /// What AWS answers a listing that shows nothing: `ListSecrets` no secrets, a DynamoDB
    /// `Query` or `Scan` no items.
    static func emptyListing(of operation: String) -> ProxyMessage {
        let body = operation == "ListSecrets" ? #"{"SecretList":[]}"# : #"{"Count":0,"Items":[],"ScannedCount":0}"#
        let type = operation == "ListSecrets" ? "application/x-amz-json-1.1" : "application/x-amz-json-1.0"
        return ProxyMessage(startLine: "HTTP/1.1 200 OK", headers: [("Content-Type", type)], body: Array(body.utf8))
    }

    /// `secretsmanager.PutSecretValue` → `PutSecretValue`; else the path: `/token` → `token`.
    static func operation(of request: ProxyMessage) -> String {
        if let target = request.header("x-amz-target"), let action = target.split(separator: ".").last {
            return String(action)
        }
        let path = request.path.drop { $0 == "/" }
        return path.isEmpty ? "/" : String(path)
    }

    private static func hostAndPort(_ url: String) -> (String, Int)? {
        guard url.hasPrefix("http://") else { return nil }
        let authority = url.dropFirst("http://".count).prefix { $0 != "/" }
        let parts = authority.split(separator: ":")
        guard parts.count == 2, let port = Int(parts[1]) else { return nil }
        return (String(parts[0]), port)
    }
}

/// Why a ``FaultProxy`` could not start.
package struct FaultProxyError: Error, CustomStringConvertible {
    /// What went wrong.
    package let message: String
    package var description: String { message }
}
