import Foundation

/// How long a test lets legitimate work take before calling it a failure, on a machine that
/// may be busy: a bound tuned on an idle machine is a flake on a loaded one (docs/testing.md,
/// "Time in tests").
///
/// Only bounds on work that must succeed scale (a moto call in the fault matrix, a connect
/// to a loopback server). Time-outs a test expects to fire (a stalled peer) stay short: a
/// busier machine cannot make them fire late, only later.
package enum TestTime {
    /// The ceiling of the automatic factor: past it a machine is too busy for any bound.
    package static let maximumFactor = 8.0

    /// `PAYPULSE_TEST_TIME_SCALE` when set to a number of at least 1; else the 1-minute load
    /// average per CPU (`/proc/loadavg`; 1 where there is none, as on macOS), at least 1 and
    /// at most ``maximumFactor``. Read at each call, since the load moves during a run.
    package static var factor: Double {
        if let text = ProcessInfo.processInfo.environment["PAYPULSE_TEST_TIME_SCALE"], let set = Double(text), set >= 1 {
            return set
        }
        guard let loadavg = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8),
            let load = loadavg.split(separator: " ").first.flatMap({ Double($0) })
        else { return 1 }
        let perCPU = load / Double(max(ProcessInfo.processInfo.activeProcessorCount, 1))
        return min(max(perCPU, 1), maximumFactor)
    }

    /// `duration` times ``factor``.
    package static func scaled(_ duration: Duration) -> Duration {
        duration * factor
    }

    /// The total budget of a retry policy in a test that counts attempts or plays a race:
    /// half an hour, longer than any suite runs, so no scheduling delay ends the retries
    /// early. A load factor cannot do this: the load average lags a burst of load, and a
    /// starved concurrency pool once spent a flat 60 s before a third attempt. It stays under an
    /// hour, so an hour-long `Retry-After` still falls outside it.
    package static let unreachableBudget = Duration.seconds(1_800)
}
