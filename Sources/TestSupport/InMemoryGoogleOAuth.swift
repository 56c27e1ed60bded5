import PayPulsePorts
import Synchronization

/// A ``GoogleOAuth`` in memory, for handler and domain tests that need Google's answers
/// without HTTP: grants with an account and scopes, and Google's refusals as the HTTP
/// adapter classifies them (the HTTP fake, `FakeGoogleServer`, proves that classification).
package final class InMemoryGoogleOAuth: GoogleOAuth, Sendable {
    /// How Google answers a refresh of one token.
    package enum Behaviour: Sendable, Equatable {
        /// A live grant of this account and scope (space-joined). Its `id_token` names
        /// `audience` when given, not our client (Google never does this for a grant of ours;
        /// the verifier must not believe such a token); with `rotatesTo`, Google returns that
        /// new refresh token.
        case grant(subject: String, email: String?, scope: String, audience: String? = nil, rotatesTo: String? = nil)
        /// Issued to another OAuth client: 401 `unauthorized_client`.
        case foreign
        /// 5xx or a timeout after the adapter's retries.
        case unavailable
    }

    /// Google Sign-In's scopes with Gmail read access.
    package static let signInScope = "openid https://www.googleapis.com/auth/userinfo.email https://www.googleapis.com/auth/gmail.readonly"

    /// Our client ID, the only one this Google accepts.
    package let clientID: String
    private let state = Mutex(State())

    private struct State {
        var grants: [String: Behaviour] = [:]
        var clientDeleted = false
        var probesUnavailable = false
        var refreshes: [String] = []
        var revoked: [String] = []
        var issued = 0
    }

    /// Creates a Google that knows no grant yet.
    package init(clientID: String = "test-ios-client.apps.googleusercontent.com") { self.clientID = clientID }

    /// Sets how refreshes of `refreshToken` are answered.
    package func set(_ refreshToken: String, _ behaviour: Behaviour) { state.withLock { $0.grants[refreshToken] = behaviour } }

    /// A live grant of `subject` (Google Sign-In's scopes unless given).
    package func addGrant(_ refreshToken: String, subject: String, email: String?, scope: String = InMemoryGoogleOAuth.signInScope) {
        set(refreshToken, .grant(subject: subject, email: email, scope: scope))
    }

    /// Our OAuth client was deleted: every refresh gets `deleted_client`.
    package func deleteClient() { state.withLock { $0.clientDeleted = true } }

    /// Makes probes (refreshes of unknown tokens) fail as unavailable, so a client refusal
    /// cannot be told apart.
    package func failProbes() { state.withLock { $0.probesUnavailable = true } }

    /// The refresh tokens presented, in order (probes included).
    package var refreshes: [String] { state.withLock { $0.refreshes } }

    /// The tokens revoked, in order.
    package var revoked: [String] { state.withLock { $0.revoked } }

    package func refresh(refreshToken: String, clientID: String) async throws -> GoogleRefreshAnswer {
        try state.withLock { state in
            state.refreshes.append(refreshToken)
            guard clientID == self.clientID else {
                throw GoogleOAuthError(kind: .clientRefused, code: "invalid_client", detail: "The OAuth client was not found.")
            }
            guard !state.clientDeleted else {
                throw GoogleOAuthError(kind: .clientBroken, code: "deleted_client", detail: "The OAuth client was deleted.")
            }
            switch state.grants[refreshToken] {
            case nil:
                if state.probesUnavailable { throw GoogleOAuthError(kind: .transient, code: "http_503", detail: "Backend Error") }
                throw GoogleOAuthError(kind: .invalidGrant, code: "invalid_grant", detail: "Token has been expired or revoked.")
            case .foreign?:
                throw GoogleOAuthError(kind: .clientRefused, code: "unauthorized_client", detail: "Unauthorized")
            case .unavailable?:
                throw GoogleOAuthError(kind: .transient, code: "http_503", detail: "Backend Error")
            case .grant(let subject, let email, let scope, let audience, let rotatesTo)?:
                state.issued += 1
                let identity = scope.split(separator: " ").contains("openid")
                    ? GoogleIdentity(subject: subject, email: email, emailVerified: email != nil, audience: [audience ?? clientID]) : nil
                return GoogleRefreshAnswer(
                    accessToken: "ya29.google-\(state.issued)", expiresIn: 3599, scope: scope, refreshToken: rotatesTo, identity: identity
                )
            }
        }
    }

    package func revoke(token: String) async throws {
        state.withLock { state in
            state.revoked.append(token)
            state.grants[token] = nil
        }
    }
}
