import PayPulseDomain

/// The four functions the soak runs.
enum SoakFunction: String, Sendable, CaseIterable {
    case storeTokens = "store-tokens"
    case tokenRefresh = "token-refresh"
    case disconnect
    case userProfile = "user-profile"
}

/// The token set one store-tokens call sent, exactly (the app's JSON body).
struct SentTokens: Sendable, Equatable {
    var accessToken: String
    /// Absent in the "account switch without a refresh token" variant.
    var refreshToken: String?
    var email: String
    /// Space-joined, as stored.
    var scope: String
    var expiresIn: Int
    /// Whether the fake Google was told to answer `invalid_grant` for its refresh token.
    var scriptedRevoked: Bool
    /// Names the call in reports (worker and iteration), which never print a token.
    var call: String
}

/// One operation the soak ran: which function, for whom, when (monotonic), and what came
/// back.
struct SoakRecord: Sendable {
    var function: SoakFunction
    /// The user, for the three API functions; `nil` for token-refresh.
    var user: Int?
    var started: ContinuousClock.Instant
    var ended: ContinuousClock.Instant
    /// `nil` when killed by a signal.
    var exitStatus: Int32?
    var signal: Int32?
    /// The API response's `statusCode`; `nil` for token-refresh or an unreadable response.
    var httpStatus: Int?
    /// store-tokens: the set sent.
    var sent: SentTokens?
    /// token-refresh: the summary it answered.
    var summary: RefreshSummary?
    /// Written by the harness before the soak (the seed of each user), not by a process.
    var isSeed = false
    /// The last lines of standard error, kept only for failed runs.
    var failureDetail: String?

    /// A store-tokens that answered 201.
    var isStored: Bool { function == .storeTokens && httpStatus == 201 }
    /// A disconnect that answered 200.
    var isDisconnected: Bool { function == .disconnect && httpStatus == 200 }

    /// Ended strictly before `other` started: no overlap, so `other`'s effect comes later.
    func endedBefore(_ other: SoakRecord) -> Bool { ended < other.started }

    /// The outcome bucket the report counts: the HTTP status, the refresh result, or how
    /// the process ended abnormally.
    var outcome: String {
        if let signal { return "signal \(signal)" }
        if exitStatus != 0 { return "exit \(exitStatus ?? -1)" }
        if let httpStatus { return "\(httpStatus)" }
        if summary != nil { return "ok" }
        return "unreadable"
    }
}
