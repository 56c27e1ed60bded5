#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PayPulsePorts

/// Proves a refresh token the app sent before it is stored: one refresh at Google's token
/// endpoint with each of our clients in turn (``ClientTrial``), the one the app named first.
/// Google's answer then replaces what the app claimed: the access token, its lifetime, the
/// granted scopes, the account (`sub`, `email`, `email_verified` from the answer's
/// `id_token`) and the client that holds the grant.
package struct GrantVerifier: Sendable {
    /// Why a connect is refused; nothing is stored for any of them.
    package enum Refusal: Error, Sendable, Equatable {
        /// `invalid_grant`: the grant is dead; the user signs in with Google again.
        case invalidGrant
        /// The tokens were issued to an OAuth client that is none of ours (ours are healthy).
        case foreignClient
        /// Our own client or its configuration is broken: a fault of ours, never the user's.
        case clientBroken(String)
        /// Whether the grant is ours cannot be told now (the store or Google is down).
        case unavailable(String)
    }

    /// What verification found out.
    package struct Result: Sendable, Equatable {
        /// What to store: Google's answer when verified, else the app's tokens as sent.
        package var tokens: IncomingTokens
        /// `false` when Google could not be asked (unreachable, 5xx or 429 after retries, an
        /// unreadable answer): the set is stored unverified for the next refresh run.
        package var verified: Bool { tokens.verified }
        /// Why it stayed unverified, for the log.
        package var reason: String?
    }

    let google: any GoogleOAuth
    let clients: @Sendable () async throws -> GoogleClients
    let health: OAuthClientHealth
    let now: @Sendable () -> Date

    /// Creates a verifier.
    /// - Parameters:
    ///   - clients: our OAuth clients (from their secret, e.g. ``CachedGoogleClients/value()``).
    ///   - health: tells a foreign grant from a broken client; shared across requests.
    ///   - now: the clock that dates Google's answer (``IncomingTokens/provedAt``).
    package init(
        google: any GoogleOAuth, clients: @escaping @Sendable () async throws -> GoogleClients, health: OAuthClientHealth,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.google = google
        self.clients = clients
        self.health = health
        self.now = now
    }

    /// Verifies `incoming`, which must carry a refresh token; its ``IncomingTokens/clientID``
    /// (the app's word) is tried first when it is one of ours.
    /// - Throws: ``Refusal``.
    package func verify(_ incoming: IncomingTokens, logger: Logger) async throws(Refusal) -> Result {
        guard let refreshToken = incoming.refreshToken else { return Result(tokens: incoming, reason: nil) }
        let clients: GoogleClients
        do {
            clients = try await self.clients()
        } catch let error as StoreError where error == .unavailable {
            throw .unavailable("the client ID secret cannot be read now: \(error)")
        } catch {
            throw .clientBroken("\(error)")
        }
        // Until Google says whose it is, the app's word is only a hint, and only one of ours.
        var unverified = incoming
        unverified.verified = false
        unverified.clientID = incoming.clientID.flatMap { clients.contains($0) ? $0 : nil }

        let grant: GoogleRefreshAnswer, clientID: String
        switch await ClientTrial.refresh(refreshToken, candidates: clients.trialOrder(preferring: incoming.clientID), google: google, health: health) {
        case .accepted(let answer, let accepting):
            (grant, clientID) = (answer, accepting)
        case .refused(.dead, _): throw .invalidGrant
        case .refused(.foreign, _): throw .foreignClient
        case .refused(.ourClient(let reason), _): throw .clientBroken(reason)
        case .refused(.undecided(let reason), let cause) where cause?.kind == .clientRefused:
            // Google refused the grant's client and the probe could not tell whose fault.
            throw .unavailable(reason)
        case .refused(.undecided(let reason), _):
            return Result(tokens: unverified, reason: reason)
        }

        let provedAt = now()
        if let identity = grant.identity, !identity.isIssued(to: clientID) {
            logger.warning("Google's id_token names another audience; refusing the grant as another client's")
            throw .foreignClient
        }
        let verified = IncomingTokens(
            accessToken: grant.accessToken, refreshToken: grant.refreshToken ?? refreshToken, expiresIn: grant.expiresIn,
            scopes: grant.scope.map { $0.split(separator: " ").map(String.init) } ?? incoming.scopes,
            // Without an id_token (a grant without openid) Google says nothing about the
            // account: the app's address stays, as the unconfirmed hint it is (no subject, no
            // email_verified), as when Google could not be asked at all.
            email: grant.identity.map(\.email) ?? incoming.email, tokenType: grant.tokenType, subject: grant.identity?.subject,
            emailVerified: grant.identity?.emailVerified, clientID: clientID, verified: true, provedAt: provedAt
        )
        return Result(tokens: verified, reason: nil)
    }
}

/// What a refusal of one grant's refresh means, read the same way at connect time and by
/// the refresh job: about this grant alone, about our own client, or nothing yet.
package enum GrantRefusal: Sendable, Equatable {
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
    package func read(_ error: GoogleOAuthError, clientID: String) async -> GrantRefusal {
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

/// Tells a grant issued to another OAuth client from a fault of our own client.
///
/// Google answers `unauthorized_client` (sometimes `invalid_client`) both for a refresh
/// token issued to another client and for a client ID of ours it does not accept. The
/// probe is one refresh with our client ID and a refresh token that cannot exist: a healthy
/// client hears `invalid_grant` (the token is unknown), a broken one hears the client
/// refusal again. A healthy answer is kept for ``healthyFor``, so a run over many foreign
/// grants probes once per client; concurrent checks of a client share one probe.
package actor OAuthClientHealth {
    /// What the probe found.
    package enum Verdict: Sendable, Equatable {
        /// Google knows our client: a client refusal was about the grant.
        case healthy
        /// Google refuses our client itself (the reason names Google's answer).
        case broken(String)
        /// The probe could not tell (Google unavailable): decide nothing.
        case unknown(String)
    }

    /// The refresh token of the probe: not one Google could have issued.
    package static let probeRefreshToken = "paypulse-client-probe.not-a-refresh-token"

    private let google: any GoogleOAuth
    private let healthyFor: Duration
    /// Per client: when a probe last found it healthy, and the probe under way.
    private var healthySince: [String: ContinuousClock.Instant] = [:]
    private var probing: [String: Task<Verdict, Never>] = [:]

    /// Creates a checker.
    /// - Parameter healthyFor: how long a healthy verdict is reused without a new probe.
    package init(google: any GoogleOAuth, healthyFor: Duration = .seconds(300)) {
        self.google = google
        self.healthyFor = healthyFor
    }

    /// Whether Google accepts `clientID`, probing unless a recent probe said so.
    package func check(clientID: String) async -> Verdict {
        if let since = healthySince[clientID], ContinuousClock.now - since < healthyFor { return .healthy }
        if let running = probing[clientID] { return await running.value }
        let google = google
        let task = Task { await Self.probe(google, clientID: clientID) }
        probing[clientID] = task
        let verdict = await task.value
        probing[clientID] = nil
        if verdict == .healthy { healthySince[clientID] = ContinuousClock.now }
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
