/// Where metric records go: CloudWatch Embedded Metric Format lines, written whole on
/// their own line so CloudWatch can read them (not wrapped in a log format).
package protocol MetricsSink: Sendable {
    /// Emits one EMF JSON document as one line.
    func emit(_ line: String)
}
