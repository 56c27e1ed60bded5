import PayPulsePorts

/// Tells a grant issued to another OAuth client from a fault of our own client.
///
/// Google answers `unauthorized_client` (sometimes `invalid_client`) both for a refresh
/// token issued to another client and for a client ID of ours it does not accept. The
/// probe is one refresh with our client ID and a refresh token that cannot exist: a healthy
/// client hears `invalid_grant` (the token is unknown), a broken one hears the client
/// refusal again. A healthy answer is kept for ``healthyFor``, so a run over many foreign
/// grants probes once; concurrent checks share one probe.
public actor OAuthClientHealth {
    /// What the probe found.
    public enum Verdict: Sendable, Equatable {
        /// Google knows our client: a client refusal was about the grant.
        case healthy
        /// Google refuses our client itself (the reason names Google's answer).
        case broken(String)
        /// The probe could not tell (Google unavailable): decide nothing.
        case unknown(String)
    }

    /// The refresh token of the probe: not one Google could have issued.
    public static let probeRefreshToken = "paypulse-client-probe.not-a-refresh-token"

    private let google: any GoogleOAuth
    private let healthyFor: Duration
    private var healthy: (clientID: String, at: ContinuousClock.Instant)?
    private var probing: (clientID: String, task: Task<Verdict, Never>)?

    /// Creates a checker.
    /// - Parameter healthyFor: how long a healthy verdict is reused without a new probe.
    public init(google: any GoogleOAuth, healthyFor: Duration = .seconds(300)) {
        self.google = google
        self.healthyFor = healthyFor
    }

    /// Whether Google accepts `clientID`, probing unless a recent probe said so.
    public func check(clientID: String) async -> Verdict {
        if let healthy, healthy.clientID == clientID, ContinuousClock.now - healthy.at < healthyFor { return .healthy }
        if let probing, probing.clientID == clientID { return await probing.task.value }
        let google = google
        let task = Task { await Self.probe(google, clientID: clientID) }
        probing = (clientID, task)
        let verdict = await task.value
        if probing?.clientID == clientID { probing = nil }
        if verdict == .healthy { healthy = (clientID, ContinuousClock.now) }
        return verdict
    }

    private static func probe(_ google: any GoogleOAuth, clientID: String) async -> Verdict {
        do {
            _ = try await google.refresh(refreshToken: probeRefreshToken, clientID: clientID)
            return .healthy  // accepted: odd for a made-up token, but the client works
        } catch let error as GoogleOAuthError {
            switch error.kind {
            case .invalidGrant: return .healthy
            case .clientRefused, .clientBroken: return .broken("\(error)")
            case .transient, .invalidToken, .rejected: return .unknown("\(error)")
            }
        } catch {
            return .unknown("\(type(of: error))")
        }
    }
}
