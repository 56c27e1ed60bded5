#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `_X_AMZN_TRACE_ID`, which the X-Ray SDKs read for the current invocation.
enum TraceEnvironment {
    /// The variable's name.
    static let variable = "_X_AMZN_TRACE_ID"

    /// Exports `traceID` for the invocation about to run, or removes the previous
    /// invocation's id so it is never attributed to this one. Invocations run one at a
    /// time in a process, so the process-wide variable is safe to change here.
    static func export(_ traceID: String?) {
        if let traceID {
            setenv(variable, traceID, 1)
        } else {
            unsetenv(variable)
        }
    }
}
