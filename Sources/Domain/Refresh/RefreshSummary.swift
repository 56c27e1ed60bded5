#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What one refresh run did: the handler's result, and the same counts as metrics.
public struct RefreshSummary: Sendable, Equatable, Codable {
    /// Grants listed in this shard: every grant on a store that lists everything, only those
    /// that may be due on one with a due index (the DynamoDB token store).
    public var scanned = 0
    /// Those the listing showed as due (expiring within the window, refreshable).
    public var due = 0
    /// Grants refreshed and written back.
    public var refreshed = 0
    /// Refreshes dropped because newer tokens were stored meanwhile.
    public var conflicts = 0
    /// Grants Google refused (`invalid_grant`), now marked revoked.
    public var revoked = 0
    /// Grants Google refused as issued to another OAuth client, now marked rejected.
    public var rejected = 0
    /// Grants left for the next run after a transient Google or store failure.
    public var transient_failures = 0
    /// Sets not refreshed: already revoked or rejected, without a refresh token, or not due
    /// after all.
    public var skipped = 0
    /// Due grants not started because the deadline was near.
    public var remaining = 0
    /// How long the run took.
    public var duration_ms = 0

    /// An empty summary.
    public init() {}

    /// The counts as one CloudWatch Embedded Metric Format document (namespace
    /// `PayPulse/TokenRefresh`, dimension `Function`), on one line.
    public func embeddedMetricFormat(function: String, timestamp: Date) -> String {
        let counts: [(String, Int)] = [
            ("Scanned", scanned), ("Due", due), ("Refreshed", refreshed), ("Conflicts", conflicts), ("Revoked", revoked), ("Rejected", rejected),
            ("TransientFailures", transient_failures), ("Skipped", skipped), ("Remaining", remaining),
        ]
        let metrics = counts.map { #"{"Name":"\#($0.0)","Unit":"Count"}"# } + [#"{"Name":"DurationMs","Unit":"Milliseconds"}"#]
        let values = counts.map { #""\#($0.0)":\#($0.1)"# } + [#""DurationMs":\#(duration_ms)"#]
        let millis = Int64((timestamp.timeIntervalSince1970 * 1000).rounded(.down))
        let functionName = function.filter { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
        return #"{"_aws":{"Timestamp":\#(millis),"CloudWatchMetrics":[{"Namespace":"PayPulse/TokenRefresh","Dimensions":[["Function"]],"Metrics":[\#(metrics.joined(separator: ","))]}]},"Function":"\#(functionName)",\#(values.joined(separator: ","))}"#
    }
}
