import Foundation
import PayPulseFakeGoogle
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A blocking TCP socket with a read buffer, for ``FaultProxy``'s per-connection threads.
final class ProxySocket {
    let fd: Int32
    private var buffer: [UInt8] = []
    private var closed = false

    init(fd: Int32) { self.fd = fd }

    deinit { close() }

    /// Connects to `host:port` (an IPv4 literal).
    static func connect(host: String, port: Int) -> ProxySocket? {
        let fd = PortableSocket.makeTCP()
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr(host)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        guard PortableSocket.connect(fd, to: &address) == 0 else {
            PortableSocket.close(fd)
            return nil
        }
        return ProxySocket(fd: fd)
    }

    /// Sends every byte; false when the peer is gone.
    func write(_ bytes: [UInt8]) -> Bool {
        PortableSocket.sendAll(fd, bytes)
    }

    /// Reads one message. A request or a response with `Content-Length` or chunked framing
    /// is read exactly; a response without framing is read to end of stream.
    /// - Returns: `nil` at end of stream or on a malformed head.
    func readMessage(isResponse: Bool) -> ProxyMessage? {
        let separator = Array("\r\n\r\n".utf8)
        var end = buffer.firstRange(of: separator)?.lowerBound
        while end == nil {
            guard receive() else { return nil }
            end = buffer.firstRange(of: separator)?.lowerBound
        }
        guard let end, var message = ProxyMessage(head: String(decoding: buffer[..<end], as: UTF8.self)) else { return nil }
        buffer.removeFirst(end + separator.count)
        if message.header("transfer-encoding")?.lowercased().contains("chunked") == true {
            guard let body = readChunked() else { return nil }
            message.body = body
        } else if let length = message.header("content-length").flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) {
            guard let body = read(count: length) else { return nil }
            message.body = body
        } else if isResponse {
            while receive() {}
            message.body = buffer
            buffer.removeAll()
        }
        return message
    }

    /// Blocks until the peer closes or `stopped` says so (polling every 20 ms).
    func waitUntilPeerCloses(stopped: () -> Bool) {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while !stopped() {
            let ready = poll(&poller, 1, 20)
            guard ready > 0 else { continue }
            var byte: UInt8 = 0
            if recv(fd, &byte, 1, 0) <= 0 { return }
        }
    }

    /// Closes with a TCP reset (SO_LINGER 0) instead of an orderly FIN.
    func reset() {
        PortableSocket.lingerZero(fd)
        close()
    }

    /// Shuts both directions down (wakes a thread blocked on this socket) without closing.
    func shutdownBoth() { shutdown(fd, Int32(SHUT_RDWR)) }

    /// Closes once.
    func close() {
        guard !closed else { return }
        closed = true
        PortableSocket.close(fd)
    }

    private func read(count: Int) -> [UInt8]? {
        while buffer.count < count {
            guard receive() else { return nil }
        }
        let bytes = Array(buffer[..<count])
        buffer.removeFirst(count)
        return bytes
    }

    private func readLine() -> String? {
        let crlf = Array("\r\n".utf8)
        var end = buffer.firstRange(of: crlf)?.lowerBound
        while end == nil {
            guard receive() else { return nil }
            end = buffer.firstRange(of: crlf)?.lowerBound
        }
        guard let end else { return nil }
        let line = String(decoding: buffer[..<end], as: UTF8.self)
        buffer.removeFirst(end + crlf.count)
        return line
    }

    private func readChunked() -> [UInt8]? {
        var body: [UInt8] = []
        while true {
            guard let line = readLine(), let size = Int(line.split(separator: ";")[0].trimmingCharacters(in: .whitespaces), radix: 16) else { return nil }
            if size == 0 {
                while let trailer = readLine(), !trailer.isEmpty {}
                return body
            }
            guard let chunk = read(count: size), readLine() != nil else { return nil }
            body += chunk
        }
    }

    private func receive() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return false }
        buffer.append(contentsOf: chunk[..<n])
        return true
    }
}
