import PayPulsePorts

/// What a refusal of one grant's refresh means, read the same way at connect time and by
/// the refresh job: about this grant alone, about our own client, or nothing yet.
public enum GrantRefusal: Sendable, Equatable {
    /// `invalid_grant`: the grant is dead.
    case dead
    /// Issued to another OAuth client (a client refusal while our client is healthy).
    case foreign
    /// Our own client or its configuration is broken; the reason names Google's answer.
    case ourClient(String)
    /// Google is unavailable or answered oddly, or the probe could not tell: decide nothing.
    case undecided(String)
}

extension OAuthClientHealth {
    /// Reads `error`, from refreshing a grant with `clientID`; a client refusal costs one
    /// probe (shared and cached, see ``check(clientID:)``).
    public func read(_ error: GoogleOAuthError, clientID: String) async -> GrantRefusal {
        switch error.kind {
        case .invalidGrant:
            return .dead
        case .clientRefused:
            switch await check(clientID: clientID) {
            case .healthy: return .foreign
            case .broken(let reason): return .ourClient("Google refuses our OAuth client: \(reason)")
            case .unknown(let reason): return .undecided("\(error); the client probe could not tell why: \(reason)")
            }
        case .clientBroken:
            return .ourClient("\(error)")
        case .transient, .rejected, .invalidToken:
            return .undecided("\(error)")
        }
    }
}
