import PayPulsePorts
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes each EMF document as one raw line on standard error, which Lambda ships to
/// CloudWatch Logs, where the metrics are extracted.
public struct StandardErrorMetricsSink: MetricsSink {
    /// Creates the sink.
    public init() {}

    public func emit(_ line: String) {
        let text = line + "\n"
        _ = text.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
    }
}
