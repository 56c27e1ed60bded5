import Foundation
import PayPulseTestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A blocking TCP connection to a local server that sends exactly the bytes it is given:
/// half-sent requests, malformed chunks and slow clients that an HTTP client library will
/// not produce.
final class RawHTTPConnection {
    private let fd: Int32

    /// Connects to `127.0.0.1:port` taken from a `http://127.0.0.1:PORT` base URL.
    init(baseURL: String) throws {
        guard let port = baseURL.split(separator: ":").last.flatMap({ UInt16($0) }) else { throw RawHTTPError("no port in \(baseURL)") }
        // Close-on-exec and no SIGPIPE, like the test servers' own sockets.
        fd = PortableSocket.makeTCP()
        guard fd >= 0 else { throw RawHTTPError("socket failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(port.bigEndian)
        guard PortableSocket.connect(fd, to: &address) == 0 else {
            close(fd)
            throw RawHTTPError("connect to port \(port) failed")
        }
    }

    deinit { close(fd) }

    /// Sends `text` as it is; false when the server has closed.
    @discardableResult
    func transmit(_ text: String) -> Bool { PortableSocket.sendAll(fd, Array(text.utf8)) }

    /// Closes the sending side: the request ends here, however much it announced.
    func finishSending() { shutdown(fd, Int32(SHUT_WR)) }

    /// Everything the server sends until it closes the connection or `limit` passes.
    /// - Returns: The bytes read as text, and whether the server closed the connection.
    func readUntilClosed(within limit: Duration) -> (text: String, closed: Bool) {
        var received: [UInt8] = []
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 50) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { return (String(decoding: received, as: UTF8.self), true) }
            received += chunk[..<n]
        }
        return (String(decoding: received, as: UTF8.self), false)
    }

    /// Reads until one response head and its `Content-Length` body have arrived (or `limit`).
    func readResponse(within limit: Duration) -> String {
        var received: [UInt8] = []
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            let text = String(decoding: received, as: UTF8.self)
            if let end = text.range(of: "\r\n\r\n") {
                let head = text[..<end.lowerBound].lowercased()
                let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                if text.utf8.count - text[..<end.upperBound].utf8.count >= length { return text }
            }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 50) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { break }
            received += chunk[..<n]
        }
        return String(decoding: received, as: UTF8.self)
    }
}

/// A raw connection that could not be made.
struct RawHTTPError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
