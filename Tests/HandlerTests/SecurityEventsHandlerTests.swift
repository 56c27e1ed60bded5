import Foundation
import Logging
import PayPulseDomain
import PayPulseHandlers
import PayPulseIssuerKeys
import PayPulsePorts
import PayPulseRuntime
import PayPulseTestSupport
import PayPulseTransport
import Synchronization
import Testing

/// The receiver's own decisions, in process: what it answers, what it records and counts,
/// and what a failing ledger does. (The events' effect on each store is proven through the
/// built function in `SecurityEventReceiverTests`.)
@Suite("security-events: answers, the ledger and the metric lines")
struct SecurityEventsHandlerTests {
    static let client = "ios.apps.googleusercontent.com", issuer = "https://accounts.google.com/", subject = "109999999999999999999"

    /// Every line a sink was given.
    final class Lines: MetricsSink, Sendable {
        private let store = Mutex<[String]>([])
        func emit(_ line: String) { store.withLock { $0.append(line) } }
        var all: [[String: Any]] {
            store.withLock { $0 }.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }
    }

    struct Bench {
        let google: FakeGoogleServer
        let secrets = InMemorySecretStore()
        let ledger = InMemorySecurityEventLedger()
        let lines = Lines()
        let logs = LogCapture()
        var vault: TokenVault { TokenVault(secrets: secrets) }

        /// - Parameter proved: whether Google proved the stored grant (now); `false` stores it
        ///   as sent, with no proof an event could be older than.
        init(keySet: String, proved: Bool = true) async throws {
            google = try FakeGoogleServer()
            google.publishRISCKeys(keySet, issuer: SecurityEventsHandlerTests.issuer)
            _ = try await vault.store(
                IncomingTokens(
                    accessToken: "ya29.a", refreshToken: "1//r", scopes: [GmailScopes.readonly], subject: SecurityEventsHandlerTests.subject,
                    verified: proved
                ),
                for: UserID("user-1")!
            )
        }

        /// The fake Google's RISC discovery document and keys, fetched over HTTP as in production.
        static func keys(_ google: FakeGoogleServer) -> any IssuerKeySource {
            HTTPIssuerKeySource(location: .riscConfiguration(google.riscConfigurationURL), transport: CurlHTTPClient(), logger: Logger(label: "risc"))
        }

        var handler: SecurityEventsHandler {
            let keys = Self.keys(google)
            return SecurityEventsHandler(
                verifier: SecurityEventVerifier(keys: keys, clientIDs: { [SecurityEventsHandlerTests.client] }),
                events: GoogleAccountEvents(vault: vault, recoveryWindowDays: 7), ledger: ledger, metrics: lines
            )
        }

        func post(_ body: String, method: String = "POST") async -> APIResponse {
            await handler.handle(
                APIRequest(method: method, path: "/v1/google/security-events", headers: APIHeaders(["content-type": "application/secevent+jwt"]), body: Array(body.utf8)),
                context: InvocationContext(logger: logs.logger)
            )
        }

        func status() async throws -> GmailTokenSet.Status? { try await set()?.status }
        func set() async throws -> GmailTokenSet? { try await vault.current(of: UserID("user-1")!)?.tokenSet }
    }

    /// One token per type, under one key, each issued its `ages` seconds ago (5 unless
    /// told), with fresh `jti`s unless told.
    static func sign(_ types: [String], jti: String? = nil, ages: [Int] = []) throws -> PyJWTIssuer {
        let now = Int(Date().timeIntervalSince1970)
        return try PyJWTIssuer.sign(types.enumerated().map { index, type in
            PyJWTIssuer.Token(claims: [
                "iss": issuer, "aud": client, "iat": now - (index < ages.count ? ages[index] : 5), "jti": jti ?? UUID().uuidString,
                "events": [type: ["subject": ["subject_type": "iss-sub", "iss": issuer, "sub": subject]]],
            ], alg: "RS256")
        })
    }

    @Test("a valid token is 202 with no body, recorded for 30 days, and counted by its event type")
    func accepted() async throws {
        let signed = try Self.sign(["https://schemas.openid.net/secevent/risc/event-type/account-disabled"], jti: "jti-accepted")
        let bench = try await Bench(keySet: signed.jwks)
        let response = await bench.post(signed.tokens[0])
        #expect(response.status == 202 && response.body.isEmpty)
        #expect(response.headers["content-type"] == nil, "an empty body is of no type")
        #expect(try await bench.status() == .disabled)
        let expiry = try #require(await bench.ledger.records["jti-accepted"])
        #expect(abs(expiry.timeIntervalSinceNow - SecurityEventsHandler.rememberedFor) < 60)
        let latest = try #require(try await bench.ledger.latestEvents(of: [Self.subject])?[Self.subject])
        #expect(latest.type == "https://schemas.openid.net/secevent/risc/event-type/account-disabled" && abs(latest.receivedAt.timeIntervalSinceNow) < 60)
        let line = try #require(bench.lines.all.first)
        #expect(line["EventType"] as? String == "account-disabled" && line["Events"] as? Int == 1 && line["GrantsChanged"] as? Int == 1)
        #expect(line["Function"] as? String == "security-events")
    }

    /// A compact JWS holds no whitespace, so a line break around it is the transport's, not
    /// the token's: a 400 would be final (Google never delivers a refused token again).
    @Test("a token with a line break or spaces around it is accepted (202), not refused for good")
    func whitespaceAround() async throws {
        let signed = try Self.sign(["https://schemas.openid.net/secevent/risc/event-type/account-disabled"], jti: "jti-newline")
        let bench = try await Bench(keySet: signed.jwks)
        let response = await bench.post(" " + signed.tokens[0] + "\r\n")
        #expect(response.status == 202, "\(response.body)")
        #expect(try await bench.status() == .disabled)
    }

    @Test("the same jti delivered again is 202 and acts no more: a reconnect after tokens-revoked stays connected")
    func redelivered() async throws {
        let signed = try Self.sign(["https://schemas.openid.net/secevent/oauth/event-type/tokens-revoked"], jti: "jti-twice")
        let bench = try await Bench(keySet: signed.jwks)
        #expect(await bench.post(signed.tokens[0]).status == 202)
        #expect(try await bench.status() == .revoked)
        _ = try await bench.vault.store(
            IncomingTokens(accessToken: "ya29.again", refreshToken: "1//again", scopes: [GmailScopes.readonly], subject: Self.subject),
            for: UserID("user-1")!
        )
        #expect(await bench.post(signed.tokens[0]).status == 202)
        #expect(try await bench.status() == .active)
        #expect(bench.lines.all.count == 1, "the redelivery is not counted as another event")
    }

    @Test("a copy delivered while another acts on it is 503 and changes nothing; once that copy recorded it, 202")
    func inFlightElsewhere() async throws {
        let signed = try Self.sign(["https://schemas.openid.net/secevent/oauth/event-type/tokens-revoked"], jti: "jti-in-flight")
        let bench = try await Bench(keySet: signed.jwks)
        #expect(try await bench.ledger.claim("jti-in-flight", by: "another receiver", until: Date().addingTimeInterval(300)))
        let response = await bench.post(signed.tokens[0])
        #expect(response.status == 503)
        #expect(response.headers["retry-after"] != nil, "Google is told to deliver it again")
        #expect(try await bench.status() == .active, "the other copy acts, not this one")
        #expect(bench.lines.all.isEmpty)
        try await bench.ledger.record("jti-in-flight", until: Date().addingTimeInterval(86_400))
        #expect(await bench.post(signed.tokens[0]).status == 202)
        #expect(try await bench.status() == .active)
    }

    @Test("an invalid token is 400 with RFC 8935's object, recorded nowhere, counted as invalid; GET is 405")
    func refused() async throws {
        let signed = try Self.sign(["https://schemas.openid.net/secevent/risc/event-type/account-disabled"])
        let bench = try await Bench(keySet: signed.jwks)
        let response = await bench.post("not a token")
        #expect(response.status == 400)
        let body = try #require(try JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: String])
        #expect(body["err"] == "invalid_request" && body.count == 2 && body["description"]?.isEmpty == false)
        #expect(await bench.ledger.records.isEmpty)
        #expect(bench.lines.all.map { $0["EventType"] as? String } == ["invalid"])
        #expect(bench.lines.all.first?["Invalid"] as? Int == 1)
        #expect(await bench.post(signed.tokens[0], method: "GET").status == 405)
        #expect(try await bench.status() == .active)
    }

    @Test("the ledger unreadable is 503 and nothing changes; the ledger unwritable after acting is still 202")
    func ledgerFailures() async throws {
        let signed = try Self.sign(["https://schemas.openid.net/secevent/oauth/event-type/tokens-revoked"])
        let bench = try await Bench(keySet: signed.jwks)
        await bench.ledger.setFault(.unavailable)
        #expect(await bench.post(signed.tokens[0]).status == 503)
        #expect(try await bench.status() == .active)
        // A ledger that claims but cannot record: the event is acted on and accepted, and the failure logged.
        let flaky = FlakyLedger()
        let handler = SecurityEventsHandler(
            verifier: SecurityEventVerifier(keys: Bench.keys(bench.google), clientIDs: { [Self.client] }),
            events: GoogleAccountEvents(vault: bench.vault, recoveryWindowDays: 7), ledger: flaky, metrics: bench.lines
        )
        let response = await handler.handle(
            APIRequest(method: "POST", path: "/v1/google/security-events", headers: APIHeaders([:]), body: Array(signed.tokens[0].utf8)),
            context: InvocationContext(logger: bench.logs.logger)
        )
        #expect(response.status == 202)
        #expect(try await bench.status() == .revoked)
        #expect(bench.logs.lines.contains { $0.contains("applied but not recorded") })
    }

    @Test("the store failing while acting: 503 and nothing recorded; each grant changed whole or not at all; the redelivery finishes")
    func storeDownWhileActing() async throws {
        let signed = try Self.sign(["https://schemas.openid.net/secevent/oauth/event-type/tokens-revoked"], jti: "jti-halfway")
        let bench = try await Bench(keySet: signed.jwks)
        // A second user connected the same Google account.
        _ = try await bench.vault.store(
            IncomingTokens(accessToken: "ya29.b", refreshToken: "1//s", scopes: [GmailScopes.readonly], subject: Self.subject), for: UserID("user-2")!
        )
        // The store takes the first grant's write, then goes down.
        let writes = Mutex(0)
        await bench.secrets.setFault { operation in
            guard operation == "ReplaceCurrent" else { return nil }
            return writes.withLock { count in
                count += 1
                return count > 1 ? .unavailable : nil
            }
        }
        let halfway = await bench.post(signed.tokens[0])
        #expect(halfway.status == 503 && halfway.body.contains("upstream_unavailable"))
        // One grant was changed before the store went down: the body must not deny it.
        #expect(!halfway.body.contains("nothing was changed"), "\(halfway.body)")
        #expect(await bench.ledger.records.isEmpty, "an event not fully acted on is not recorded")
        let statuses = [try await bench.vault.current(of: UserID("user-1")!)?.tokenSet.status, try await bench.vault.current(of: UserID("user-2")!)?.tokenSet.status]
        #expect(statuses.filter { $0 == .revoked }.count == 1 && statuses.filter { $0 == .active }.count == 1, "\(statuses)")

        await bench.secrets.setFault(nil)
        #expect(await bench.post(signed.tokens[0]).status == 202)
        #expect(try await bench.vault.current(of: UserID("user-1")!)?.tokenSet.status == .revoked)
        #expect(try await bench.vault.current(of: UserID("user-2")!)?.tokenSet.status == .revoked)
        #expect(await bench.ledger.records["jti-halfway"] != nil)
    }

    /// Claims, then refuses to record for good.
    private struct FlakyLedger: SecurityEventLedger {
        func contains(_ jti: String) async throws -> Bool { false }
        func claim(_ jti: String, by claimant: String, until expiry: Date) async throws -> Bool { true }
        func release(_ jti: String, by claimant: String) async throws {}
        func record(_ jti: String, until expiry: Date) async throws { throw StoreError.unavailable }
    }
}
