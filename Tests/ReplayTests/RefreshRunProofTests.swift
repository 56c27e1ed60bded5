import Foundation
import PayPulseDomain
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// The built token-refresh executable over many due grants, on both stores: one grant of
/// another OAuth client and one dead grant among them never stop the others; only a
/// failure of our own client fails the invocation.
@Suite("token-refresh reads refusals per grant, through the built executable")
struct RefreshRunProofTests {
    static let grants = 24
    static let scheduled = #"{"version":"0","id":"proof","detail-type":"Scheduled Event","source":"aws.events","account":"123456789012","time":"2026-01-01T00:00:00Z","region":"us-east-1","resources":[],"detail":{}}"#

    @Test("embedded store: 22 refreshed, 1 rejected, 1 revoked, exit 0; a deleted client fails the run")
    func embedded() async throws {
        let backend = try ReplayBackend.embedded()
        defer { backend.cleanUp() }
        try await prove(on: backend)
    }

    @Test("moto_server: 22 refreshed, 1 rejected, 1 revoked, exit 0; a deleted client fails the run")
    func moto() async throws {
        // Its own moto: the replay suite resets the shared one before each of its cases.
        let server = try await MotoServer.launchPrivate()  // exits when released
        try await prove(on: try await ReplayBackend.aws(on: server))
    }

    private func prove(on backend: ReplayBackend) async throws {
        let google = try FakeGoogleServer()
        defer { google.stop() }
        _ = try await backend.secrets.createSecret(
            name: "Google-OAuth-Client-ID", value: google.clientID, tags: [:], clientRequestToken: SecretVersionID.random().rawValue
        )
        var environment = backend.environment
        environment["GOOGLE_TOKEN_ENDPOINT"] = google.tokenEndpoint
        environment["GOOGLE_REVOKE_ENDPOINT"] = google.revokeEndpoint

        // Every grant expires within the window; grant 0 is the most overdue and belongs to
        // a debug build's client, grant 1 was revoked by its user: both are picked first.
        let vault = TokenVault(secrets: backend.secrets)
        var refreshTokens: [String] = []
        for index in 0..<Self.grants {
            let token = "1//proof-refresh-\(index)"
            refreshTokens.append(token)
            switch index {
            case 0: google.addGrant(refreshToken: token, account: FakeGoogleAccount(issuedTo: "debug-build.apps.googleusercontent.com"))
            case 1: break  // unknown to Google: invalid_grant
            default: google.addGrant(refreshToken: token, scope: "openid https://www.googleapis.com/auth/gmail.readonly")
            }
            _ = try await vault.store(
                IncomingTokens(accessToken: "ya29.proof-\(index)", refreshToken: token, expiresIn: 30 + index, scopes: [GmailScopes.readonly]),
                for: UserID("proof-\(index)")!
            )
        }

        let run = try await FunctionProcess.run("token-refresh", event: Data(Self.scheduled.utf8), environment: environment)
        #expect(run.exitedNormally && run.status == 0, "stderr: \(run.stderr.suffix(800))")
        let summary = try JSONDecoder().decode(RefreshSummary.self, from: Data(run.stdout.utf8))
        #expect(summary.due == Self.grants && summary.refreshed == Self.grants - 2)
        #expect(summary.rejected == 1 && summary.revoked == 1 && summary.transient_failures == 0 && summary.remaining == 0)
        #expect(run.stderr.contains(#""Rejected":1"#) && run.stderr.contains(#""Revoked":1"#), "the EMF line counts both")
        #expect(try await vault.current(of: UserID("proof-0")!)?.tokenSet.status == .rejected)
        #expect(try await vault.current(of: UserID("proof-1")!)?.tokenSet.status == .revoked)
        #expect(try await vault.connectionState(of: UserID("proof-0")!) == .rejected)
        for index in 2..<Self.grants {
            let set = try #require(try await vault.current(of: UserID("proof-\(index)")!)?.tokenSet)
            #expect(set.status == .active && set.accessToken.hasPrefix("ya29.fake-") && set.googleSubject != nil)
        }
        var scanner = SecretScanner.forEvents([])
        refreshTokens.forEach { scanner.add($0) }
        #expect(scanner.findings(in: run.stdout, source: "stdout").isEmpty && scanner.findings(in: run.stderr, source: "stderr").isEmpty)

        // The next run skips the two unread and calls Google for nobody.
        let calls = google.tokenCalls
        let next = try await FunctionProcess.run("token-refresh", event: Data(Self.scheduled.utf8), environment: environment)
        let nextSummary = try JSONDecoder().decode(RefreshSummary.self, from: Data(next.stdout.utf8))
        #expect(next.status == 0 && nextSummary.skipped == 2 && nextSummary.due == 0 && google.tokenCalls == calls)

        // Our own client deleted: the run fails, loudly, and no grant is marked.
        let unverified = "1//proof-due-again"
        google.addGrant(refreshToken: unverified)
        _ = try await vault.store(IncomingTokens(accessToken: "ya29.proof-again", refreshToken: unverified, expiresIn: 30, scopes: [GmailScopes.readonly]), for: UserID("proof-again")!)
        google.deleteClient()
        let failed = try await FunctionProcess.run("token-refresh", event: Data(Self.scheduled.utf8), environment: environment)
        #expect(failed.exitedNormally && failed.status != 0 && failed.stdout.isEmpty)
        #expect(failed.stderr.contains("deleted_client") && failed.stderr.lowercased().contains("critical"))
        #expect(try await vault.current(of: UserID("proof-again")!)?.tokenSet.status == .active)
    }
}
