import Foundation
import PayPulseFakeGoogle
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Loopback ports for tests: one where nobody listens, for refused connections; one free a
/// moment ago, for a server that cannot pick its own.
///
/// The port stays bound (never listening) until the test process exits, so the kernel
/// refuses every connection to it and cannot hand it to a server another test starts
/// meanwhile: a port found free and released could be taken by any parallel listener, and
/// the "refused" request would then reach that server.
package enum RefusingLoopbackPort {
    private static let held = NSLock()
    nonisolated(unsafe) private static var descriptors: [Int32] = []

    /// A port on 127.0.0.1 that refuses connections for the rest of the process.
    /// - Throws: when no port can be bound.
    package static func make() throws -> Int {
        let (fd, port) = try bound()
        held.withLock { descriptors.append(fd) }
        return port
    }

    /// A port free a moment ago, for a server that cannot pick its own (nginx): another
    /// process may take it before that server binds, so the caller retries on a bind failure.
    /// - Throws: when no port can be bound.
    package static func free() throws -> Int {
        let (fd, port) = try bound()
        close(fd)
        return port
    }

    /// Whether something accepts a connection on 127.0.0.1:`port` now.
    package static func accepts(port: Int) -> Bool {
        let fd = PortableSocket.makeTCP()
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopback(port: port)
        return PortableSocket.connect(fd, to: &address) == 0
    }

    /// A socket bound to a port the kernel picked on 127.0.0.1 (not listening), and the port.
    private static func bound() throws -> (Int32, Int) {
        let fd = PortableSocket.makeTCP()
        var address = loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard fd >= 0, bound == 0 else {
            if fd >= 0 { close(fd) }
            throw MotoServerError(message: "no loopback port could be bound")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return address
    }
}
