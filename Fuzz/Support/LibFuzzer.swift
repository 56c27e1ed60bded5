import CLibFuzzer
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs libFuzzer over one target.
package enum LibFuzzer {
    /// The callback libFuzzer calls with each input; it must not capture anything.
    package typealias Callback = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

    /// Hands the process arguments (`-max_total_time=…`, corpus directories) to libFuzzer's
    /// driver and exits with its status.
    /// - Parameter callback: Tests one input; returns 0.
    package static func run(_ callback: Callback) -> Never {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, callback))
    }

    /// The input as an array (libFuzzer may pass a null pointer for the empty input).
    package static func bytes(_ data: UnsafePointer<UInt8>?, _ count: Int) -> [UInt8] {
        guard let data, count > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: count))
    }
}
