/// Turns the Runtime API's wall-clock deadline into a monotonic one, so handlers
/// compare it with `ContinuousClock.now` and a clock step cannot move it.
public enum LambdaDeadline {
    /// The instant `epochMilliseconds` falls on, measured from a pair of readings of
    /// the two clocks taken together.
    ///
    /// - Parameters:
    ///   - epochMilliseconds: The deadline, in milliseconds since the Unix epoch.
    ///   - wallNow: The wall clock now, in milliseconds since the epoch.
    ///   - monotonicNow: `ContinuousClock.now` read at the same moment.
    /// - Returns: The deadline on the continuous clock (in the past if it has passed).
    public static func instant(
        epochMilliseconds: Int64, wallNow: Int64 = LogTimestamp.now().millisecondsSinceEpoch,
        monotonicNow: ContinuousClock.Instant = .now
    ) -> ContinuousClock.Instant {
        monotonicNow.advanced(by: .milliseconds(epochMilliseconds - wallNow))
    }
}
