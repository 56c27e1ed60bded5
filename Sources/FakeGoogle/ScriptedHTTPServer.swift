import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 whose answers a test scripts: a status and body,
/// a stall (accept, read, never answer), a reset, or a truncated body. It records every
/// request and counts connections, so tests can check retries and connection reuse.
package final class ScriptedHTTPServer: @unchecked Sendable {
    /// What to do with one request.
    package enum Action: Sendable {
        /// Answer with this status, headers and body.
        case respond(status: Int, headers: [String: String] = [:], body: String = "")
        /// Read the request and never answer (until the server stops).
        case stall
        /// Close the connection without answering.
        case close
        /// Announce `announced` bytes but send `body` and close.
        case truncate(announced: Int, body: String)
    }

    /// A request as received.
    package struct Request: Sendable {
        /// The method.
        package var method: String
        /// The path with query.
        package var target: String
        /// Header fields, names lowercased.
        package var headers: [String: String]
        /// The body.
        package var body: [UInt8]
    }

    /// The port it listens on.
    package let port: Int
    /// `http://127.0.0.1:<port>`.
    package var url: String { "http://127.0.0.1:\(port)" }

    private let listener: LoopbackListener
    private let script: @Sendable (Int, Request) -> Action
    private let greeting: String?
    private let lock = NSLock()
    private var recorded: [Request] = []

    /// Starts listening on a free loopback port.
    /// - Parameters:
    ///   - greeting: bytes sent as soon as a connection is accepted, before any request
    ///     (to play a server that speaks out of turn, e.g. plain text to a TLS client).
    ///   - script: the action for the n-th request (from 0).
    package init(greeting: String? = nil, script: @escaping @Sendable (Int, Request) -> Action) throws {
        listener = try LoopbackListener()
        port = listener.port
        self.script = script
        self.greeting = greeting
        listener.start { [self] client in
            serve(client)
            return { PortableSocket.finish(client) }
        }
    }

    deinit { stop() }

    /// Every request received so far.
    package var requests: [Request] { lock.withLock { recorded } }

    /// How many connections were accepted.
    package var connectionCount: Int { listener.connectionCount }

    /// Stops accepting and closes every connection (releasing stalled ones). Idempotent.
    package func stop() { listener.stop() }

    /// Serves one connection; the listener closes it afterwards.
    private func serve(_ client: Int32) {
        if let greeting, !write(client, greeting) { return }
        var buffer: [UInt8] = []
        while let request = readRequest(client, buffer: &buffer) {
            let index: Int = lock.withLock {
                recorded.append(request)
                return recorded.count - 1
            }
            switch script(index, request) {
            case .respond(let status, let headers, let body):
                var head = "HTTP/1.1 \(status) Scripted\r\nContent-Length: \(body.utf8.count)\r\n"
                for (name, value) in headers { head += "\(name): \(value)\r\n" }
                guard write(client, head + "\r\n" + body) else { return }
            case .stall:
                while !listener.isStopped { usleep(20_000) }
                return
            case .close:
                return
            case .truncate(let announced, let body):
                _ = write(client, "HTTP/1.1 200 OK\r\nContent-Length: \(announced)\r\n\r\n\(body)")
                return
            }
        }
    }

    private func write(_ client: Int32, _ text: String) -> Bool {
        PortableSocket.sendAll(client, Array(text.utf8))
    }

    private func readRequest(_ client: Int32, buffer: inout [UInt8]) -> Request? {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        var headerEnd: Int?
        while headerEnd == nil {
            headerEnd = buffer.firstRange(of: separator)?.lowerBound
            if headerEnd == nil, !receive(client, into: &buffer) { return nil }
        }
        let head = String(decoding: buffer[..<headerEnd!], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let bodyStart = headerEnd! + separator.count
        let length = Int(headers["content-length"] ?? "0") ?? 0
        while buffer.count < bodyStart + length {
            guard receive(client, into: &buffer) else { return nil }
        }
        let body = Array(buffer[bodyStart..<(bodyStart + length)])
        buffer.removeFirst(bodyStart + length)
        return Request(
            method: requestLine.first.map(String.init) ?? "", target: requestLine.count > 1 ? String(requestLine[1]) : "",
            headers: headers, body: body
        )
    }

    private func receive(_ client: Int32, into buffer: inout [UInt8]) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let n = chunk.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return false }
        buffer.append(contentsOf: chunk[..<n])
        return true
    }
}
