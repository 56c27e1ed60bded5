#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The three file descriptors a stdin-mode run uses: 0, 1 and 2 for a real process,
/// pipes in tests. Plain `read`/`write` on descriptors keep full Foundation (and its ICU
/// data) out of the binary, and avoid the C `stderr` global Swift 6 refuses.
public struct StandardStreams: Sendable, Equatable {
    /// Where the event is read from.
    public var input: Int32
    /// Where the one response line goes.
    public var output: Int32
    /// Where error lines (and logs, through ``StderrLogHandler``) go.
    public var error: Int32

    /// Creates a set of descriptors.
    ///
    /// - Parameters:
    ///   - input: The descriptor to read the event from.
    ///   - output: The descriptor for the response.
    ///   - error: The descriptor for error lines.
    public init(input: Int32, output: Int32, error: Int32) {
        self.input = input
        self.output = output
        self.error = error
    }

    /// The process's own standard input, output and error.
    public static let process = StandardStreams(input: 0, output: 1, error: 2)
}

/// Reads and writes whole buffers on a descriptor, retrying on `EINTR` and short writes.
enum FileDescriptorIO {
    enum ReadResult: Equatable {
        case complete([UInt8])
        /// More than `limit` bytes were available; reading stopped there.
        case tooLarge
        case failed(errno: Int32)
    }

    /// Reads until end of file, but never more than `limit + 1` bytes.
    static func readAll(_ fd: Int32, limit: Int) -> ReadResult {
        var bytes: [UInt8] = []
        let chunk = 64 * 1024
        while true {
            let wanted = min(chunk, limit + 1 - bytes.count)
            let oldCount = bytes.count
            bytes.append(contentsOf: repeatElement(0, count: wanted))
            let got = bytes.withUnsafeMutableBytes { buffer in
                read(fd, buffer.baseAddress! + oldCount, wanted)
            }
            if got < 0 {
                bytes.removeLast(wanted)
                if errno == EINTR { continue }
                return .failed(errno: errno)
            }
            bytes.removeLast(wanted - got)
            if got == 0 { return .complete(bytes) }
            if bytes.count > limit { return .tooLarge }
        }
    }

    /// Writes all of `bytes`; `false` if the descriptor refused (closed pipe, full disk).
    @discardableResult
    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                write(fd, buffer.baseAddress! + offset, bytes.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }
}
