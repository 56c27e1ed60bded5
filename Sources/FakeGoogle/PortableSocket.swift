#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The socket calls the loopback servers and test proxies make, where Glibc and Darwin
/// spell them differently: Linux has `MSG_NOSIGNAL` per send and an enum `SOCK_STREAM`,
/// Darwin `SO_NOSIGPIPE` per socket and an integer one.
package enum PortableSocket {
    /// A new IPv4 TCP socket that never raises SIGPIPE and is not inherited by a child
    /// process, or -1.
    ///
    /// Close-on-exec matters: the tests spawn executables (posix_spawn) while other tests'
    /// servers hold connections, and a child holding a copy keeps a closed connection open,
    /// so its client waits for a FIN (or a reset) that never comes until its time-out.
    package static func makeTCP() -> Int32 {
        #if canImport(Glibc)
        return socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
        // Darwin has no SOCK_CLOEXEC: set FD_CLOEXEC at once (a spawn in between may inherit).
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        if fd >= 0 {
            preventSIGPIPE(fd)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        return fd
        #endif
    }

    /// Accepts a connection on `listener`: a socket that never raises SIGPIPE and is not
    /// inherited by a child process (``makeTCP()`` says why), or -1.
    package static func accept(_ listener: Int32) -> Int32 {
        #if canImport(Glibc)
        let client = Glibc.accept(listener, nil, nil)
        #else
        let client = Darwin.accept(listener, nil, nil)
        #endif
        guard client >= 0 else { return client }
        // Glibc's module has no accept4: FD_CLOEXEC at once (a spawn in between may inherit).
        _ = fcntl(client, F_SETFD, FD_CLOEXEC)
        preventSIGPIPE(client)
        return client
    }

    /// Sends every byte of `bytes`; false when the peer is gone.
    package static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, sendFlags) }
            guard n > 0 else { return false }
            sent += n
        }
        return true
    }

    /// Ends a connection the test servers are done with: a FIN first, which reaches the peer
    /// even if a copy of the descriptor lives on elsewhere, then the descriptor closed.
    package static func finish(_ fd: Int32) {
        shutdown(fd, Int32(SHUT_WR))
        close(fd)
    }

    /// Flags for `send` so that a peer gone away is an error return, not SIGPIPE.
    package static let sendFlags: Int32 = {
        #if canImport(Glibc)
        return Int32(MSG_NOSIGNAL)
        #else
        return 0
        #endif
    }()

    /// Marks an accepted socket so writes to a closed peer do not raise SIGPIPE (Darwin;
    /// Linux uses ``sendFlags``).
    package static func preventSIGPIPE(_ fd: Int32) {
        #if canImport(Darwin)
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    /// Connects `fd` to an IPv4 address; 0 on success.
    package static func connect(_ fd: Int32, to address: inout sockaddr_in) -> Int32 {
        withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                #if canImport(Glibc)
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                #else
                Darwin.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                #endif
            }
        }
    }

    /// Closes a descriptor (for types with a `close()` of their own).
    package static func close(_ fd: Int32) {
        #if canImport(Glibc)
        _ = Glibc.close(fd)
        #else
        _ = Darwin.close(fd)
        #endif
    }

    /// Sets SO_LINGER to zero, so the next close sends a TCP reset instead of a FIN.
    package static func lingerZero(_ fd: Int32) {
        #if canImport(Glibc)
        var value = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &value, socklen_t(MemoryLayout<Glibc.linger>.size))
        #else
        var value = Darwin.linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &value, socklen_t(MemoryLayout<Darwin.linger>.size))
        #endif
    }

    /// A connected pair of Unix sockets, both ends close-on-exec.
    package static func closeOnExecPair() -> (Int32, Int32)? {
        var ends: [Int32] = [-1, -1]
        #if canImport(Glibc)
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else { return nil }
        #else
        // Darwin has no SOCK_CLOEXEC: set FD_CLOEXEC at once (a spawn in between may inherit).
        guard socketpair(AF_UNIX, SOCK_STREAM, 0, &ends) == 0 else { return nil }
        ends.forEach { _ = fcntl($0, F_SETFD, FD_CLOEXEC) }
        #endif
        return (ends[0], ends[1])
    }
}
