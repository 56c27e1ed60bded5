import Foundation
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
        #if os(Linux)
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw RawHTTPError("socket failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(port.bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw RawHTTPError("connect to port \(port) failed")
        }
    }

    deinit { close(fd) }

    #if os(Linux)
    private static let sendFlags = Int32(MSG_NOSIGNAL)
    #else
    private static let sendFlags: Int32 = 0
    #endif

    /// Sends `text` as it is; false when the server has closed.
    @discardableResult
    func transmit(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Self.sendFlags) }
            guard n > 0 else { return false }
            sent += n
        }
        return true
    }

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
