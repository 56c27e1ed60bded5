import PayPulsePorts

/// Refreshes a grant with our clients in turn until Google accepts one: how a grant whose
/// client is not known yet (a connect, a set stored unverified) finds it, and how a known
/// one (a trial of one) is renewed.
///
/// A client refusal while that client is healthy means "not this client's grant": the next
/// is tried. `invalid_grant` ends the trial (the grant is dead whoever asks), and so does
/// an answer that decides nothing (Google unavailable: asking more clients only adds load).
/// When no client accepts, a broken client of ours outranks "foreign": the grant may be
/// that client's.
enum ClientTrial {
    /// What the trial found.
    enum Outcome: Sendable {
        /// Google renewed the grant with `clientID`.
        case accepted(GoogleRefreshAnswer, clientID: String)
        /// No client renewed it: why, read as for one client, and Google's last refusal
        /// (`nil` when the exchange itself failed).
        case refused(GrantRefusal, cause: GoogleOAuthError?)
    }

    /// Refreshes `refreshToken` with each of `candidates` until one is accepted.
    /// - Precondition: `candidates` is not empty.
    static func refresh(
        _ refreshToken: String, candidates: [String], google: any GoogleOAuth, health: OAuthClientHealth
    ) async -> Outcome {
        precondition(!candidates.isEmpty, "a trial needs a client")
        var broken: String?
        var cause: GoogleOAuthError?
        for clientID in candidates {
            do {
                return .accepted(try await google.refresh(refreshToken: refreshToken, clientID: clientID), clientID: clientID)
            } catch let error as GoogleOAuthError {
                cause = error
                switch await health.read(error, clientID: clientID) {
                case .foreign: continue
                case .ourClient(let reason):
                    broken = broken ?? reason
                    continue
                case let decided: return .refused(decided, cause: error)
                }
            } catch {
                return .refused(.undecided("\(type(of: error))"), cause: nil)
            }
        }
        return .refused(broken.map(GrantRefusal.ourClient) ?? .foreign, cause: cause)
    }
}
