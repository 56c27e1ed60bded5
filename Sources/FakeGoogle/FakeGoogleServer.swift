import Synchronization

/// A local stand-in for Google's OAuth endpoints on 127.0.0.1: `POST /token`
/// (`grant_type=refresh_token`, form-encoded) and `POST /revoke`, answering with Google's
/// status codes and error JSON for the public (iOS) clients of one project; and its RISC
/// management API under `/risc/v1beta` with its transmitter, which signs Cross-Account
/// Protection events and pushes them to a receiver (``risc``).
///
/// Tests add grants, script faults (429, 5xx, stalls, resets), hold answers in flight,
/// add latency, and read back what arrived: every request's form, call counters, the
/// in-flight high-water mark, refreshes per grant and revoked tokens. Thread-safe.
package final class FakeGoogleServer: Sendable {
    /// The client IDs the fake knows (ours), the first the one grants are issued to when
    /// their account names none.
    package let clientIDs: [String]
    /// The first of ``clientIDs``.
    package var clientID: String { clientIDs[0] }
    /// `http://127.0.0.1:<port>/token`.
    package let tokenEndpoint: String
    /// `http://127.0.0.1:<port>/revoke`.
    package let revokeEndpoint: String
    /// `http://127.0.0.1:<port>/risc/v1beta`: the RISC management API's base, as
    /// `GOOGLE_RISC_API` names it for `paypulse risc`.
    package let riscAPIBase: String
    /// The RISC management API: its service accounts, its stream, what it received.
    package var risc: FakeGoogleRISC { backend.risc }
    /// `http://127.0.0.1:<port>/risc/.well-known/risc-configuration`: the RISC discovery
    /// document, as `GOOGLE_RISC_CONFIGURATION_URL` names it: the transmitter's issuer
    /// (`http://127.0.0.1:<port>/`) and key, or what ``publishRISCKeys(_:issuer:)`` published.
    package let riscConfigurationURL: String
    /// What the receiver fetched of the published keys.
    package var riscKeys: FakeGoogleRISCKeys { backend.riscKeys }

    private let backend: FakeGoogleBackend
    private let server: ScriptedHTTPServer

    /// Starts on a free loopback port.
    /// - Parameter clientIDs: the client IDs refreshes may carry (not empty); a grant
    ///   refreshes only with the one it was issued to (``FakeGoogleAccount/issuedTo``).
    package init(clientIDs: [String] = ["fake-ios-client.apps.googleusercontent.com"]) throws {
        precondition(!clientIDs.isEmpty, "the fake needs a client")
        let backend = FakeGoogleBackend(clientIDs: clientIDs)
        server = try ScriptedHTTPServer { _, request in backend.handle(request) }
        self.backend = backend
        self.clientIDs = clientIDs
        tokenEndpoint = server.url + "/token"
        revokeEndpoint = server.url + "/revoke"
        riscAPIBase = server.url + FakeGoogleRISC.basePath
        riscConfigurationURL = server.url + FakeGoogleRISCKeys.configurationPath
        keySetURL = server.url + FakeGoogleRISCKeys.keySetPath
        backend.risc.transmitter.locate(baseURL: server.url, keySetPath: FakeGoogleRISCKeys.keySetPath)
    }

    private let keySetURL: String

    /// Serves `keySet` (the JWKS of whoever signs the test's security events) and a
    /// discovery document naming `issuer` and it, as Google's RISC configuration does, in
    /// place of the transmitter's own.
    package func publishRISCKeys(_ keySet: String, issuer: String = "https://accounts.google.com/") {
        backend.riscKeys.publish(keySet: keySet, issuer: issuer, keySetURL: keySetURL)
    }

    deinit { stop() }

    /// Releases every hold and stops the server, which closes every connection. Idempotent.
    package func stop() {
        let holds = backend.state.withLock { $0.allHolds }
        holds.forEach { $0.release() }
        server.stop()
    }

    // MARK: grants

    /// Makes `refreshToken` a live grant of `scope`. With `rotateTo`, the first refresh also
    /// answers that new refresh token; both stay valid afterwards, as at Google. When the
    /// scope includes `openid` (Google Sign-In always asks for it), answers carry an
    /// `id_token` naming `account`; `account` also says which client the grant was issued
    /// to and scripts its lifetime.
    package func addGrant(
        refreshToken: String, scope: String = "https://www.googleapis.com/auth/gmail.readonly", rotateTo newRefreshToken: String? = nil,
        account: FakeGoogleAccount = FakeGoogleAccount()
    ) {
        backend.state.withLock { $0.grants.add(refreshToken: refreshToken, scope: scope, rotateTo: newRefreshToken, account: account) }
    }

    /// The user renamed their Google address: later `id_token`s carry `email`, same `sub`.
    package func renameAccount(refreshToken: String, email: String) {
        backend.state.withLock { $0.grants.rename(refreshToken: refreshToken, email: email) }
    }

    /// The `sub` of the grant's `id_token`s.
    package func subject(for refreshToken: String) -> String? {
        backend.state.withLock { $0.grants.subject(for: refreshToken) }
    }

    /// Our OAuth client is deleted: every refresh gets 401 `deleted_client`.
    package func deleteClient() {
        backend.state.withLock { $0.grants.clientDeleted = true }
    }

    /// Revokes a grant behind the client's back (the user removed access, the token went
    /// unused for six months, the password changed): later refreshes get `invalid_grant`.
    package func invalidateGrant(refreshToken: String) {
        backend.state.withLock { $0.grants.invalidate(refreshToken: refreshToken) }
    }

    // MARK: scripting

    /// Queues faults for the next calls to `endpoint`, one per call, after any queued before.
    package func script(_ faults: [FakeGoogleFault], on endpoint: FakeGoogleEndpoint = .token) {
        backend.state.withLock { $0.faults[endpoint, default: []].append(contentsOf: faults) }
    }

    /// Holds every answer of `endpoint` from now on until the returned hold is released.
    package func hold(_ endpoint: FakeGoogleEndpoint = .token) -> FakeGoogleHold {
        let hold = FakeGoogleHold()
        backend.state.withLock {
            $0.holds[endpoint] = hold
            $0.allHolds.append(hold)
        }
        return hold
    }

    /// A delay added to every call before it is answered, so overlapping calls show up in
    /// ``maxConcurrentTokenCalls``.
    package var latency: Duration {
        get { backend.state.withLock { $0.latency } }
        set { backend.state.withLock { $0.latency = newValue } }
    }

    // MARK: what happened

    /// Every request received, in order.
    package var requests: [FakeGoogleRequest] { backend.state.withLock { $0.requests } }
    /// Calls to `/token`, faulted ones included.
    package var tokenCalls: Int { backend.state.withLock { $0.calls[.token] ?? 0 } }
    /// Calls to `/revoke`, faulted ones included.
    package var revokeCalls: Int { backend.state.withLock { $0.calls[.revoke] ?? 0 } }
    /// The most `/token` calls that were in flight at once.
    package var maxConcurrentTokenCalls: Int { backend.state.withLock { $0.maxConcurrentTokenCalls } }
    /// Tokens revoked through `/revoke`, in order.
    package var revokedTokens: [String] { backend.state.withLock { $0.grants.revokedTokens } }

    /// Refresh tokens answered `invalid_grant`, in order (repeats included): the only
    /// grounds on which a client may mark a grant revoked.
    package var invalidGrantRefreshTokens: [String] { backend.state.withLock { $0.grants.invalidGrantRefreshTokens } }

    /// Refresh tokens refused as issued to another client, in order (repeats included).
    package var foreignRefreshTokens: [String] { backend.state.withLock { $0.grants.foreignRefreshTokens } }

    /// Whether the fake issued `accessToken` in answer to a refresh presenting `refreshToken`.
    package func issued(accessToken: String, presenting refreshToken: String) -> Bool {
        backend.state.withLock { $0.grants.issued(accessToken: accessToken, presenting: refreshToken) }
    }

    /// Successful refreshes of the grant `refreshToken` names (0 for an unknown token).
    package func refreshCount(for refreshToken: String) -> Int {
        backend.state.withLock { $0.grants.refreshCount(for: refreshToken) }
    }
}
