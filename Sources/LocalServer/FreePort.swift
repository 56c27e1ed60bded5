#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PayPulseFakeGoogle

/// A port nothing listens on right now, for `--port 0` with the stand-in Google: the
/// handlers are pointed at the server's own address before it starts listening.
enum FreePort {
    /// Asks the kernel for a free IPv4 port on `host` (an address like 127.0.0.1).
    static func pick(host: String) -> Int? { bindable(host: host, port: 0) }

    /// Whether `port` on `host` can be listened on now: checked before start-up so that a
    /// port in use is one line, not a line after the start-up's own.
    static func isFree(host: String, port: Int) -> Bool { bindable(host: host, port: port) != nil }

    /// Binds and returns the port bound, or `nil`. With SO_REUSEADDR, as the server binds:
    /// connections of an earlier run in TIME_WAIT do not count, a listener does.
    private static func bindable(host: String, port: Int) -> Int? {
        let fd = PortableSocket.makeTCP()
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr(host == "localhost" ? "127.0.0.1" : host)
        address.sin_port = UInt16(port).bigEndian
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard bound == 0 else { return nil }
        var actual = sockaddr_in()
        var actualLength = length
        let named = withUnsafeMutablePointer(to: &actual) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &actualLength) } }
        guard named == 0 else { return nil }
        return Int(UInt16(bigEndian: actual.sin_port))
    }
}
