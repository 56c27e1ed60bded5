import Foundation
import PayPulseFakeGoogle
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A loopback port where nobody listens, for tests of refused connections.
///
/// The port stays bound (never listening) until the test process exits, so the kernel
/// refuses every connection to it and cannot hand it to a server another test starts
/// meanwhile: a port found free and released could be taken by any parallel listener, and
/// the "refused" request would then reach that server.
public enum RefusingLoopbackPort {
    private static let held = NSLock()
    nonisolated(unsafe) private static var descriptors: [Int32] = []

    /// A port on 127.0.0.1 that refuses connections for the rest of the process.
    /// - Throws: when no port can be bound.
    public static func make() throws -> Int {
        let fd = PortableSocket.makeTCP()
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
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
        held.withLock { descriptors.append(fd) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
