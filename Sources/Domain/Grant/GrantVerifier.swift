import Logging
import PayPulsePorts

/// Proves a refresh token the app sent before it is stored: one refresh at Google's token
/// endpoint with our client ID. Google's answer then replaces what the app claimed: the
/// access token, its lifetime, the granted scopes and the account (`sub`, `email`,
/// `email_verified` from the answer's `id_token`).
public struct GrantVerifier: Sendable {
    /// Why a connect is refused; nothing is stored for any of them.
    public enum Refusal: Error, Sendable, Equatable {
        /// `invalid_grant`: the grant is dead; the user signs in with Google again.
        case invalidGrant
        /// The tokens were issued to another OAuth client (our client is healthy).
        case foreignClient
        /// Our own client or its configuration is broken: a fault of ours, never the user's.
        case clientBroken(String)
        /// Whether the grant is ours cannot be told now (the store or Google is down).
        case unavailable(String)
    }

    /// What verification found out.
    public struct Result: Sendable, Equatable {
        /// What to store: Google's answer when verified, else the app's tokens as sent.
        public var tokens: IncomingTokens
        /// `false` when Google could not be asked (unreachable, 5xx or 429 after retries, an
        /// unreadable answer): the set is stored unverified for the next refresh run.
        public var verified: Bool { tokens.verified }
        /// Why it stayed unverified, for the log.
        public var reason: String?
    }

    let google: any GoogleOAuth
    let clientID: @Sendable () async throws -> String
    let health: OAuthClientHealth

    /// Creates a verifier.
    /// - Parameters:
    ///   - clientID: our iOS client ID (from its secret, e.g. ``CachedClientID/value()``).
    ///   - health: tells a foreign grant from a broken client; shared across requests.
    public init(google: any GoogleOAuth, clientID: @escaping @Sendable () async throws -> String, health: OAuthClientHealth) {
        self.google = google
        self.clientID = clientID
        self.health = health
    }

    /// Verifies `incoming`, which must carry a refresh token.
    /// - Throws: ``Refusal``.
    public func verify(_ incoming: IncomingTokens, logger: Logger) async throws(Refusal) -> Result {
        guard let refreshToken = incoming.refreshToken else { return Result(tokens: incoming, reason: nil) }
        let clientID: String
        do {
            clientID = try await self.clientID()
        } catch let error as StoreError where error == .unavailable {
            throw .unavailable("the client ID secret cannot be read now: \(error)")
        } catch {
            throw .clientBroken("\(error)")
        }

        let grant: GoogleTokenGrant
        do {
            grant = try await google.refresh(refreshToken: refreshToken, clientID: clientID)
        } catch let error as GoogleOAuthError {
            switch await health.read(error, clientID: clientID) {
            case .dead: throw .invalidGrant
            case .foreign: throw .foreignClient
            case .ourClient(let reason): throw .clientBroken(reason)
            case .undecided(let reason) where error.kind == .clientRefused:
                // Google refused the grant's client and the probe could not tell whose fault.
                throw .unavailable(reason)
            case .undecided(let reason):
                var unverified = incoming
                unverified.verified = false
                return Result(tokens: unverified, reason: reason)
            }
        } catch {
            var unverified = incoming
            unverified.verified = false
            return Result(tokens: unverified, reason: "\(type(of: error))")
        }

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
            emailVerified: grant.identity?.emailVerified, verified: true
        )
        return Result(tokens: verified, reason: nil)
    }
}
