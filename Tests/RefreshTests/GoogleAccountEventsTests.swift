import Crypto
import Foundation
import PayPulseDomain
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// Google's security events change exactly the grants of the account they name, and
/// user-profile (the connection state), the refresh job and fresh-token agree at once. On
/// every store, with the fake Google over HTTP behind the refresher.
@Suite("Security events change the grants of the Google account they name")
struct GoogleAccountEventsTests {
    /// Users 0 and 1 connected the same Google account (two PayPulse users, one Gmail);
    /// user 2 another one. All three expire soon, so a run takes each that may be refreshed.
    private struct Bench {
        let fixture: RefreshFixture
        let shared = "10\(UInt64.random(in: 1_000_000_000_000_000...9_999_999_999_999_999))"
        let other = "11\(UInt64.random(in: 1_000_000_000_000_000...9_999_999_999_999_999))"
        /// The `iat` of the events sent unless told: when the bench was made (a redelivery
        /// carries its token's `iat` again).
        let issued = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))  // whole seconds, as iat

        init(_ stores: StoreFactory.Stores) async throws {
            fixture = try RefreshFixture(stores)
            for index in 0..<3 {
                let subject = index < 2 ? shared : other
                let token = "1//\(fixture.run)-\(index)"  // the first 16 characters differ per user
                fixture.google.addGrant(
                    refreshToken: token, scope: FakeGoogleGrantSpec.signInWithGmailScope, account: FakeGoogleAccount(subject: subject)
                )
                _ = try await fixture.vault.store(
                    IncomingTokens(
                        accessToken: "ya29.\(fixture.run)-\(index)", refreshToken: token, expiresIn: 60, scopes: [GmailScopes.readonly],
                        email: "u\(index)@gmail.com", subject: subject, clientID: fixture.google.clientID
                    ),
                    for: fixture.user(index)
                )
            }
        }

        var actions: GoogleAccountEvents { GoogleAccountEvents(vault: fixture.vault, recoveryWindowDays: 7) }

        func event(_ type: SecurityEventType, _ subject: String) -> SecurityEvent {
            SecurityEvent(type: type, subject: .googleAccount(GoogleAccountSubject(subject: subject, issuer: "https://accounts.google.com/")))
        }

        func tokenEvent(_ algorithm: OAuthTokenSubject.IdentifierAlgorithm, _ identifier: String) -> SecurityEvent {
            SecurityEvent(
                type: .tokenRevoked,
                subject: .oauthToken(OAuthTokenSubject(tokenType: "refresh_token", identifierAlgorithm: algorithm, identifier: identifier))
            )
        }

        func apply(_ type: SecurityEventType, _ subject: String, issuedAt: Date? = nil) async throws -> GoogleAccountEvents.Applied {
            try await actions.apply(event(type, subject), issuedAt: issuedAt ?? issued, logger: fixture.logs.logger)
        }

        func state(_ index: Int) async throws -> ConnectionState { try await fixture.vault.connectionState(of: fixture.user(index)) }
        func set(_ index: Int) async throws -> GmailTokenSet? { try await fixture.vault.current(of: fixture.user(index))?.tokenSet }

        func freshToken(_ index: Int) async -> Result<GmailTokenSet, TokenRefresher.FreshTokenError> {
            do {
                return .success(try await fixture.refresher().freshTokenSet(for: fixture.user(index), logger: fixture.logs.logger))
            } catch let error as TokenRefresher.FreshTokenError {
                return .failure(error)
            } catch {
                Issue.record("fresh-token failed otherwise: \(error)")
                return .failure(.unavailable)
            }
        }
    }

    @Test("account-disabled, then account-enabled: not connected, skipped and refused at once; connected again once Google renews", arguments: StoreFactory.allGrantStores)
    func disabledThenEnabled(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let bench = try await Bench(stores)
            let disabled = try await bench.apply(.accountDisabled, bench.shared)
            #expect(Set(disabled.changed) == [bench.fixture.user(0), bench.fixture.user(1)])
            for index in 0..<2 {
                #expect(try await bench.state(index) == .disabled)
                #expect(try await bench.set(index)?.refreshToken == "1//\(bench.fixture.run)-\(index)", "the refresh token is kept")
                #expect(await bench.freshToken(index).failure == .disabled)
            }
            #expect(try await bench.state(2) == .connected)

            // The run refreshes the other account's grant and leaves the disabled ones unread by Google.
            let run = try await bench.fixture.job().run(deadline: nil, logger: bench.fixture.logs.logger)
            #expect(run.refreshed == 1)
            for index in 0..<2 { #expect(bench.fixture.google.refreshCount(for: "1//\(bench.fixture.run)-\(index)") == 0) }

            // Delivered again: nothing more changes.
            #expect(try await bench.apply(.accountDisabled, bench.shared) == GoogleAccountEvents.Applied(changed: [], unchanged: 2))

            let enabled = try await bench.apply(.accountEnabled, bench.shared)
            #expect(Set(enabled.changed) == [bench.fixture.user(0), bench.fixture.user(1)])
            for index in 0..<2 {
                #expect(try await bench.state(index) == .disabled, "not connected until Google answers")
                #expect(try await bench.set(index)?.verified == false)
            }
            let after = try await bench.fixture.job().run(deadline: nil, logger: bench.fixture.logs.logger)
            #expect(after.refreshed == 2)
            for index in 0..<2 {
                #expect(try await bench.state(index) == .connected)
                let renewed = try await bench.set(index)
                #expect(renewed?.status == .active && renewed?.verified == true)
                #expect((try? await bench.freshToken(index).get()) != nil)
            }
        }
    }

    @Test("tokens-revoked marks the account's grants revoked, once; the other account's and a purge of an unknown account change nothing", arguments: StoreFactory.allGrantStores)
    func tokensRevoked(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let bench = try await Bench(stores)
            let revoked = try await bench.apply(.tokensRevoked, bench.shared)
            #expect(Set(revoked.changed) == [bench.fixture.user(0), bench.fixture.user(1)])
            for index in 0..<2 {
                #expect(try await bench.state(index) == .revoked)
                #expect(await bench.freshToken(index).failure == .revoked)
            }
            #expect(try await bench.state(2) == .connected)
            #expect(try await bench.apply(.tokensRevoked, bench.shared).changed.isEmpty)
            #expect(try await bench.apply(.accountPurged, "19999999999999999999").changed.isEmpty)
            // Events that change no grant, whatever account they name.
            for type in [SecurityEventType.sessionsRevoked, .accountCredentialChangeRequired, .verification, .other("https://example.com/event")] {
                #expect(try await bench.apply(type, bench.other) == GoogleAccountEvents.Applied())
            }
            #expect(try await bench.state(2) == .connected)
            #expect(bench.fixture.google.tokenCalls == 0 && bench.fixture.google.revokeCalls == 0)
        }
    }

    @Test(
        "token-revoked marks the one grant whose refresh token it names, by either identifier; the account's other grant and a token of no grant change nothing",
        arguments: StoreFactory.allGrantStores
    )
    func tokenRevoked(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let bench = try await Bench(stores)
            let token1 = "1//\(bench.fixture.run)-1", token0 = "1//\(bench.fixture.run)-0"
            // Google's identifiers, made here from the token as Google makes them.
            let hashed = Data(SHA512.hash(data: Data(SHA512.hash(data: Data(token1.utf8))))).base64EncodedString()
            let revoked = try await bench.actions.apply(bench.tokenEvent(.hashBase64SHA512SHA512, hashed), issuedAt: bench.issued, logger: bench.fixture.logs.logger)
            #expect(revoked.changed == [bench.fixture.user(1)])
            #expect(try await bench.state(1) == .revoked)
            #expect(await bench.freshToken(1).failure == .revoked)
            #expect(try await bench.state(0) == .connected, "the same account's other grant holds another token")
            #expect(try await bench.apply(.tokensRevoked, bench.other).changed == [bench.fixture.user(2)])

            // The prefix form; then a token of no grant, and a hash that is no SHA-512.
            let byPrefix = try await bench.actions.apply(bench.tokenEvent(.prefix, String(token0.prefix(16))), issuedAt: bench.issued, logger: bench.fixture.logs.logger)
            #expect(byPrefix.changed == [bench.fixture.user(0)])
            #expect(try await bench.state(0) == .revoked)
            let unknown = Data(SHA512.hash(data: Data(SHA512.hash(data: Data("1//another".utf8))))).base64EncodedString()
            #expect(try await bench.actions.apply(bench.tokenEvent(.hashBase64SHA512SHA512, unknown), issuedAt: bench.issued, logger: bench.fixture.logs.logger) == .init())
            #expect(try await bench.actions.apply(bench.tokenEvent(.hashBase64SHA512SHA512, "bm90IGEgaGFzaA=="), issuedAt: bench.issued, logger: bench.fixture.logs.logger) == .init())
            #expect(bench.fixture.google.tokenCalls == 0 && bench.fixture.google.revokeCalls == 0)
        }
    }

    @Test("token-revoked without a token_digest_key acts on nothing, and says why")
    func tokenRevokedWithoutKey() async throws {
        try await StoreFactory.embedded.withStores { stores in
            let bench = try await Bench(stores)
            let keyless = GoogleAccountEvents(vault: TokenVault(grants: bench.fixture.grants), recoveryWindowDays: 7)
            let event = bench.tokenEvent(.prefix, String("1//\(bench.fixture.run)-1".prefix(16)))
            #expect(try await keyless.apply(event, issuedAt: bench.issued, logger: bench.fixture.logs.logger) == .init())
            #expect(try await bench.state(1) == .connected)
            #expect(bench.fixture.logs.lines.contains { $0.contains("token_digest_key") })
        }
    }

    @Test("account-purged deletes the account's grants as a disconnect does, without calling Google", arguments: StoreFactory.allGrantStores)
    func purged(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let bench = try await Bench(stores)
            let purged = try await bench.apply(.accountPurged, bench.other)
            #expect(purged.changed == [bench.fixture.user(2)])
            #expect(try await bench.state(2) == .scheduledForDeletion)
            #expect(try await bench.set(2) == nil)
            #expect(bench.fixture.google.revokeCalls == 0)
            #expect(try await bench.apply(.accountPurged, bench.other).changed.isEmpty)
            #expect(try await bench.state(0) == .connected)
        }
    }

    @Test("a grant the index names but whose value is now another account's, or holds another token, is left alone")
    func staleIndex() async throws {
        try await StoreFactory.embedded.withStores { stores in
            let bench = try await Bench(stores)
            // User 2's listing names the shared account; its value does not.
            try await bench.fixture.grants.mark(bench.fixture.user(2).rawValue, attributes: [IndexedGrantAttribute.googleSubject.rawValue: bench.shared], expected: nil)
            let disabled = try await bench.apply(.accountDisabled, bench.shared)
            #expect(Set(disabled.changed) == [bench.fixture.user(0), bench.fixture.user(1)] && disabled.unchanged == 1)
            #expect(try await bench.set(2)?.status == .active)

            // User 2's listing names user 1's refresh token too; its value holds another.
            let digests = try #require(try await bench.set(1)?.refreshTokenDigests)
            try await bench.fixture.grants.mark(
                bench.fixture.user(2).rawValue, attributes: [IndexedGrantAttribute.refreshTokenPrefix.rawValue: digests.prefix], expected: nil
            )
            let revoked = try await bench.actions.apply(
                bench.tokenEvent(.prefix, String("1//\(bench.fixture.run)-1".prefix(16))), issuedAt: bench.issued, logger: bench.fixture.logs.logger
            )
            #expect(Set(revoked.changed) == [bench.fixture.user(1)] && revoked.unchanged == 1)
            #expect(try await bench.set(2)?.status == .active)
        }
    }
}

extension Result {
    /// The error, if this is a failure.
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
