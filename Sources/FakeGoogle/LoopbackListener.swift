import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP listener on a free 127.0.0.1 port, shared by the test servers (``ScriptedHTTPServer``,
/// the test support's `FaultProxy`): each accepted connection is served on its own thread, where blocking is
/// fine, and ``stop()`` ends the listener and every open connection, stalled ones included.
package final class LoopbackListener: @unchecked Sendable {
    /// The port it listens on.
    package let port: Int

    private let listener: Int32
    private let lock = NSLock()
    private var stopped = false
    private var openSockets: Set<Int32> = []
    private var accepted = 0

    /// Binds and listens; nothing is accepted before ``start(serve:)``.
    package init() throws {
        let fd = PortableSocket.makeTCP()
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        // A deep backlog: a loaded machine's accept thread lags behind bursts of connections.
        guard bound == 0, listen(fd, 512) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// How many connections were accepted.
    package var connectionCount: Int { lock.withLock { accepted } }

    /// Accepts connections until ``stop()``. `serve` handles one connection and returns how
    /// to end it; that runs under the lock, so ``stop()`` never shuts down a descriptor that
    /// was closed and reused meanwhile.
    package func start(serve: @escaping @Sendable (Int32) -> () -> Void) {
        Thread { [self] in
            while !isStopped {
                let client = PortableSocket.accept(listener)
                guard client >= 0 else { continue }
                let taken: Bool = lock.withLock {
                    guard !stopped else { return false }
                    accepted += 1
                    openSockets.insert(client)
                    return true
                }
                guard taken else {
                    close(client)
                    break
                }
                Thread { [self] in
                    let end = serve(client)
                    lock.withLock {
                        openSockets.remove(client)
                        end()
                    }
                }.start()
            }
            close(listener)
        }.start()
    }

    /// Stops accepting and shuts every connection down. Idempotent.
    package func stop() {
        lock.withLock {
            guard !stopped else { return }
            stopped = true
            shutdown(listener, Int32(SHUT_RDWR))
            for socket in openSockets { shutdown(socket, Int32(SHUT_RDWR)) }
        }
    }

    /// Whether ``stop()`` was called (a stalled connection polls it).
    package var isStopped: Bool { lock.withLock { stopped } }
}
