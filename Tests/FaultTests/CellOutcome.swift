import PayPulseTestSupport

/// How one cell of the matrix ended: the only acceptable ends, or a failure naming why.
enum CellOutcome: String, CaseIterable, Sendable {
    /// Success after retry: the same answer and final state as the fault-free run.
    case recovered = "a"
    /// Success of the store part, with the best-effort Google revoke reported as failed
    /// (`revoked_at_google: false`), as the disconnect contract says.
    case recoveredRevokeReported = "a*"
    /// A clear 503 or a transient failure the refresh summary counts, and the stored state
    /// byte for byte what it was before.
    case refusedUnchanged = "b"
    /// A write reached the store before the fault; the caller was told it failed, and a
    /// fault-free rerun of the same request converged to the fault-free final state.
    case completedByRerun = "c"
    /// A connect while Google was down: 201, the set stored exactly as the app sent it and
    /// marked unverified, nothing else changed; a later fault-free refresh run verified it
    /// to the fault-free connect's state.
    case storedUnverified = "v"
    /// Secrets Manager: the fault-free answer though a tag write was refused (the change is
    /// stored, its tags stamped for another version); the next refresh run left every
    /// listing telling what its value says.
    case storedTagsLate = "t"

    var meaning: String {
        switch self {
        case .recovered: "success after retry, same state as fault-free"
        case .recoveredRevokeReported: "disconnected; Google revoke failed and reported as revoked_at_google:false (best effort by contract)"
        case .refusedUnchanged: "clear 503 / transient failure reported, stored state byte-for-byte unchanged"
        case .completedByRerun: "failure reported after a write landed; a fault-free rerun converged"
        case .storedUnverified: "Google down at connect: 201, stored unverified as sent; the next refresh run verified it"
        case .storedTagsLate: "tag write refused: the fault-free answer, the change stored; the next refresh run rewrote the tags"
        }
    }
}

/// A cell that ended in none of the acceptable ways.
struct CellFailure: Error, CustomStringConvertible {
    let cell: String
    let reason: String
    var description: String { "\(cell): \(reason)" }
}

/// Where in a handler's call sequence a fault is placed.
struct CallPosition: Sendable, CustomStringConvertible {
    var label: String
    var trigger: FaultTrigger

    var description: String { "\(label) (\(trigger))" }
}
