#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

import PayPulseFakeGoogle
@testable import PayPulseHandlers
@testable import PayPulseRuntime

enum PipeError: Error {
    case failed
}

/// A pipe standing in for stdin, stdout or stderr; each end is closed once.
final class TestPipe {
    let read: Int32
    let write: Int32
    private var readOpen = true
    private var writeOpen = true

    init() throws {
        // Close-on-exec from the start (a socket pair: Swift does not import pipe2), so a
        // server another suite spawns meanwhile cannot inherit the write end and keep
        // ``readToEnd()`` waiting for an end that never comes.
        guard let ends = PortableSocket.closeOnExecPair() else { throw PipeError.failed }
        read = ends.0
        write = ends.1
    }

    /// Everything written so far; close the write end first or this waits forever.
    func readToEnd() throws -> [UInt8] {
        guard case .complete(let bytes) = FileDescriptorIO.readAll(read, limit: 1 << 20) else { throw PipeError.failed }
        return bytes
    }

    func closeWrite() {
        if writeOpen { close(write) }
        writeOpen = false
    }

    func closeAll() {
        closeWrite()
        if readOpen { close(read) }
        readOpen = false
    }
}
