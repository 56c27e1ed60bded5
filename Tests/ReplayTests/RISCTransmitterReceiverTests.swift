import Foundation
import PayPulseDomain
import PayPulsePorts
import PayPulseTestSupport
import Synchronization
import Testing

/// The fake Google's transmitter pushing to the built `security-events` function, behind a
/// loopback HTTP front that hands each POST to the function as API Gateway would: the
/// transmitter's tokens verify under the receiver's discovery of the fake's keys and act,
/// a lost answer is redelivered and acts once, and a refused token is not sent again.
@Suite("RISC transmitter → the built security-events function", .serialized)
struct RISCTransmitterReceiverTests {
    static let client = "transmitter-ios-client.apps.googleusercontent.com"
    static let digestKey = "transmitter-token-digest-key-0123456789abcdef"

    /// Two users, each with their own Google account, both connected.
    private struct World {
        let backend: ReplayBackend
        let google: FakeGoogleServer
        let environment: [String: String]
        let subjects = (0..<2).map { _ in "12\(UInt64.random(in: 1_000_000_000_000_000...9_999_999_999_999_999))" }
        var vault: TokenVault { TokenVault(grants: backend.grants, digester: { RefreshTokenDigester(key: RISCTransmitterReceiverTests.digestKey) }) }

        init() async throws {
            backend = try ReplayBackend.embedded()
            google = try FakeGoogleServer(clientIDs: [RISCTransmitterReceiverTests.client])
            google.risc.transmitter.redelivery = .init(attempts: 3, backoff: .milliseconds(5))
            _ = try await backend.secrets.createSecret(
                name: "Google-OAuth-Client-ID", value: #"{"client_id": "\#(RISCTransmitterReceiverTests.client)", "token_digest_key": "\#(RISCTransmitterReceiverTests.digestKey)"}"#,
                tags: [:], clientRequestToken: SecretVersionID.random().rawValue
            )
            var environment = backend.environment
            environment["GOOGLE_TOKEN_ENDPOINT"] = google.tokenEndpoint
            environment["GOOGLE_RISC_CONFIGURATION_URL"] = google.riscConfigurationURL
            self.environment = environment
            for index in 0..<2 {
                _ = try await vault.store(
                    IncomingTokens(
                        accessToken: "ya29.tx-\(index)", refreshToken: "1//0gTransmitter-\(index)", expiresIn: 3600, scopes: [GmailScopes.readonly],
                        subject: subjects[index], clientID: RISCTransmitterReceiverTests.client
                    ),
                    for: user(index)
                )
            }
        }

        func user(_ index: Int) -> UserID { UserID("tx-user-\(index)")! }
        func state(_ index: Int) async throws -> ConnectionState { try await vault.connectionState(of: user(index)) }

        /// A loopback front for the function: each POST's body goes to the built function;
        /// `answer` may replace the status it answers with (a gateway losing the answer).
        func front(answer: @escaping @Sendable (_ index: Int, _ status: Int) -> Int = { $1 }) throws -> (ScriptedHTTPServer, Logs) {
            let logs = Logs(), environment = environment
            let server = try ScriptedHTTPServer { index, request in
                do {
                    let event = try SecurityEventReceiverTests.event(body: String(decoding: request.body, as: UTF8.self))
                    let result = try FunctionProcess.runBlocking("security-events", event: event, environment: environment)
                    logs.append(result.stderr)
                    let response = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [String: Any]
                    return .respond(status: answer(index, response?["statusCode"] as? Int ?? 500), body: response?["body"] as? String ?? "")
                } catch {
                    return .respond(status: 500)
                }
            }
            return (server, logs)
        }
    }

    /// The function's standard error, one entry per run.
    final class Logs: Sendable {
        private let runs = Mutex<[String]>([])
        func append(_ run: String) { runs.withLock { $0.append(run) } }
        var all: [String] { runs.withLock { $0 } }
    }

    @Test("the transmitter's token verifies under the receiver and acts on the account it names, and only there")
    func acts() async throws {
        let world = try await World()
        defer { world.google.stop(); world.backend.cleanUp() }
        let (front, _) = try world.front()
        defer { front.stop() }

        let disabled = await world.google.risc.send(.init(.accountDisabled, subject: .account(sub: world.subjects[0])), to: front.url)
        #expect(disabled.outcome == .delivered && disabled.attempts.map(\.status) == [202])
        #expect(try await world.state(0) == .disabled)
        #expect(try await world.state(1) == .connected)

        let revoked = await world.google.risc.send(.init(.tokensRevoked, subject: .account(sub: world.subjects[1])), to: front.url)
        #expect(revoked.outcome == .delivered)
        #expect(try await world.state(1) == .revoked)

        // token-revoked names a refresh token by Google's hash of it: that grant alone.
        let one = await world.google.risc.send(.init(.tokenRevoked, subject: .refreshToken("1//0gTransmitter-0", algorithm: .hashBase64SHA512SHA512)), to: front.url)
        #expect(one.outcome == .delivered)
        #expect(try await world.state(0) == .revoked)
        #expect(world.google.riscKeys.fetches.contains("/risc/jwks"), "the keys came from the fake's discovery document")
    }

    @Test("an answer lost on the way (503) makes the transmitter send the same token again; the receiver acts once")
    func redeliveredOnce() async throws {
        let world = try await World()
        defer { world.google.stop(); world.backend.cleanUp() }
        let (front, logs) = try world.front { index, status in index == 0 ? 503 : status }
        defer { front.stop() }

        let delivery = await world.google.risc.send(.init(.accountDisabled, subject: .account(sub: world.subjects[0])), to: front.url)
        #expect(delivery.outcome == .delivered && delivery.attempts.map(\.status) == [503, 202])
        #expect(Set(front.requests.map(\.body)).count == 1, "the same token, so the same jti")
        #expect(try await world.state(0) == .disabled)
        let runs = logs.all
        #expect(runs.count == 2)
        #expect(runs[0].contains("security event applied") && !runs[0].contains("delivered again"))
        #expect(runs[1].contains("delivered again; acted on before") && !runs[1].contains("security event applied"))
    }

    @Test("a token the receiver refuses (400: its kid is not in the published keys) is not sent again")
    func refusedOnce() async throws {
        let world = try await World()
        defer { world.google.stop(); world.backend.cleanUp() }
        // Someone else's keys are published: the transmitter's kid is unknown to the receiver.
        let other = try PyJWTIssuer.sign([PyJWTIssuer.Token(claims: ["iss": "unused"], alg: "RS256")])
        world.google.publishRISCKeys(other.jwks, issuer: try #require(world.google.risc.transmitter.issuer))
        let (front, _) = try world.front()
        defer { front.stop() }

        let delivery = await world.google.risc.send(.init(.accountDisabled, subject: .account(sub: world.subjects[0])), to: front.url)
        #expect(delivery.outcome == .refused && delivery.attempts.map(\.status) == [400])
        #expect(front.requests.count == 1)
        #expect(try await world.state(0) == .connected)
    }
}
