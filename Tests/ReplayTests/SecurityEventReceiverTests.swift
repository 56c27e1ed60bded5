import Crypto
import Foundation
import _CryptoExtras
import PayPulseDomain
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// Google's Cross-Account Protection events through the built `security-events` function,
/// on every store: tokens signed by PyJWT (an independent library) under a key set the fake
/// Google publishes as Google's RISC discovery document names it, fetched over HTTP.
@Suite("security-events: Google's signed events through the built function, on every store", .serialized)
struct SecurityEventReceiverTests {
    /// Its own moto: the event replay suite resets the shared one between its cases.
    private static let moto = Task { try await MotoServer.launchPrivate() }
    static let backends = ["embedded", "aws", "dynamodb"]
    static let clients = ["replay-ios-client.apps.googleusercontent.com", "testflight-build.apps.googleusercontent.com"]
    static let issuer = "https://accounts.google.com/"
    static let risc = "https://schemas.openid.net/secevent/risc/event-type/"
    static let oauth = "https://schemas.openid.net/secevent/oauth/event-type/"
    /// The deployment's key in the client secret, under which grants list their refresh
    /// token's digests for `token-revoked`.
    static let digestKey = "replay-token-digest-key-0123456789abcdef"

    /// Users 0 and 1 connected one Google account, user 2 another; each grant is live at
    /// the fake Google, expiring soon.
    private struct World {
        let backend: ReplayBackend
        let google: FakeGoogleServer
        let environment: [String: String]
        let shared = "10\(UInt64.random(in: 1_000_000_000_000_000...9_999_999_999_999_999))"
        let other = "11\(UInt64.random(in: 1_000_000_000_000_000...9_999_999_999_999_999))"
        var vault: TokenVault { TokenVault(grants: backend.grants, digester: { RefreshTokenDigester(key: SecurityEventReceiverTests.digestKey) }) }

        init(_ name: String) async throws {
            backend = switch name {
            case "embedded": try ReplayBackend.embedded()
            case "aws": try await ReplayBackend.aws(on: try await SecurityEventReceiverTests.moto.value)
            default: try await ReplayBackend.dynamoDB(on: try await SecurityEventReceiverTests.moto.value)
            }
            google = try FakeGoogleServer(clientIDs: SecurityEventReceiverTests.clients)
            _ = try await backend.secrets.createSecret(
                name: "Google-OAuth-Client-ID", value: #"{"client_ids": ["\#(clients[0])", "\#(clients[1])"], "token_digest_key": "\#(digestKey)"}"#, tags: [:],
                clientRequestToken: SecretVersionID.random().rawValue
            )
            var environment = backend.environment
            environment["GOOGLE_TOKEN_ENDPOINT"] = google.tokenEndpoint
            environment["GOOGLE_REVOKE_ENDPOINT"] = google.revokeEndpoint
            environment["GOOGLE_RISC_CONFIGURATION_URL"] = google.riscConfigurationURL
            self.environment = environment
            for index in 0..<3 {
                let subject = index < 2 ? shared : other
                google.addGrant(refreshToken: token(index), scope: FakeGoogleGrantSpec.signInWithGmailScope, account: FakeGoogleAccount(subject: subject))
                _ = try await vault.store(
                    IncomingTokens(
                        accessToken: "ya29.seed-\(index)", refreshToken: token(index), expiresIn: 60, scopes: [GmailScopes.readonly],
                        email: "u\(index)@gmail.com", subject: subject, clientID: clients[0]
                    ),
                    for: user(index)
                )
            }
        }

        func user(_ index: Int) -> UserID { UserID("risc-user-\(index)")! }
        func token(_ index: Int) -> String { "1//risc-\(index)" }
        func state(_ index: Int) async throws -> ConnectionState { try await vault.connectionState(of: user(index)) }
        func values() async throws -> [String?] {
            var values: [String?] = []
            for index in 0..<3 { values.append(try? await backend.grants.read(user(index).rawValue).value) }
            return values
        }

        /// Posts `token` to the built function; its status code and body.
        func post(_ token: String, environment: [String: String]? = nil) async throws -> (status: Int, body: String) {
            let result = try await FunctionProcess.run("security-events", event: try SecurityEventReceiverTests.event(body: token), environment: environment ?? self.environment)
            #expect(result.status == 0, "\(result.stderr)")
            let answer = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            return (answer["statusCode"] as? Int ?? 0, answer["body"] as? String ?? "")
        }

        /// What fresh-token answers for user `index`: the error code, or `served`.
        func freshToken(_ index: Int) async throws -> String {
            let result = try await FunctionProcess.run("fresh-token", event: Data(#"{"user_id":"\#(user(index).rawValue)"}"#.utf8), environment: environment)
            let answer = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [String: Any]
            return answer?["error"] as? String ?? (answer?["access_token"] != nil ? "served" : "unreadable: \(result.stdout)")
        }

        /// Runs the built token-refresh once; its summary.
        func refreshRun() async throws -> [String: Any] {
            let event = ReplayManifest.bytes("samples/scheduled-event.json")
            let result = try await FunctionProcess.run("token-refresh", event: event, environment: environment)
            #expect(result.status == 0, "\(result.stderr)")
            return (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [String: Any] ?? [:]
        }
    }

    /// Google's claims for one event of `type` about `subject`, for our second client.
    static func claims(_ type: String, _ subject: String, jti: String = UUID().uuidString, _ overrides: [String: any Sendable] = [:]) -> [String: any Sendable] {
        var claims: [String: any Sendable] = [
            "iss": issuer, "aud": clients[1], "iat": Int(Date().timeIntervalSince1970) - 5, "jti": jti,
            "events": [type: ["subject": ["subject_type": "iss-sub", "iss": issuer, "sub": subject] as [String: any Sendable]] as [String: any Sendable]],
        ]
        for (name, value) in overrides { claims[name] = value }
        return claims
    }

    /// An API Gateway (payload 2.0) request carrying `body`, as Google's push arrives: no
    /// Authorization, `Content-Type: application/secevent+jwt`.
    static func event(body: String) throws -> Data {
        var event = try #require(try JSONSerialization.jsonObject(with: ReplayManifest.bytes("samples/v2-post-gmail-tokens.json")) as? [String: Any])
        event["rawPath"] = "/v1/google/security-events"
        event["rawQueryString"] = ""
        event["queryStringParameters"] = nil
        event["headers"] = ["content-type": "application/secevent+jwt", "user-agent": "Google-Security-Events"]
        var context = try #require(event["requestContext"] as? [String: Any])
        context["authorizer"] = nil
        var http = try #require(context["http"] as? [String: Any])
        http["path"] = "/v1/google/security-events"
        context["http"] = http
        event["requestContext"] = context
        event["body"] = Data(body.utf8).base64EncodedString()
        event["isBase64Encoded"] = true
        return try JSONSerialization.data(withJSONObject: event)
    }

    @Test("each event type changes exactly the account's grants; user-profile, the refresh run and fresh-token agree at once", arguments: backends)
    func everyEventType(_ name: String) async throws {
        let world = try await World(name)
        defer { world.google.stop(); world.backend.cleanUp() }
        let signed = try PyJWTIssuer.sign([
            PyJWTIssuer.Token(claims: Self.claims(Self.risc + "account-disabled", world.shared), alg: "RS256"),
            PyJWTIssuer.Token(claims: Self.claims(Self.risc + "account-enabled", world.shared), alg: "RS256"),
            PyJWTIssuer.Token(claims: Self.claims(Self.oauth + "tokens-revoked", world.shared), alg: "RS256"),
            PyJWTIssuer.Token(claims: Self.claims(Self.risc + "account-purged", world.other), alg: "RS256"),
            PyJWTIssuer.Token(claims: Self.claims(Self.risc + "sessions-revoked", world.other), alg: "RS256"),
            PyJWTIssuer.Token(claims: Self.claims(Self.risc + "account-credential-change-required", world.other), alg: "RS256"),
            PyJWTIssuer.Token(claims: Self.claims(Self.risc + "verification", world.other), alg: "RS256"),
        ])
        world.google.publishRISCKeys(signed.jwks, issuer: Self.issuer)

        // account-disabled: the shared account's two grants, at once everywhere.
        #expect(try await world.post(signed.tokens[0]).status == 202)
        for index in 0..<2 {
            #expect(try await world.state(index) == .disabled)
            #expect(try await world.freshToken(index) == "disabled")
        }
        #expect(try await world.state(2) == .connected)
        let run = try await world.refreshRun()
        #expect(run["refreshed"] as? Int == 1, "only the other account's grant: \(run)")
        for index in 0..<2 { #expect(world.google.refreshCount(for: world.token(index)) == 0) }

        // account-enabled: still not connected until the refresh run hears Google.
        #expect(try await world.post(signed.tokens[1]).status == 202)
        for index in 0..<2 { #expect(try await world.state(index) == .disabled) }
        #expect(try await world.refreshRun()["refreshed"] as? Int == 2)
        for index in 0..<2 {
            #expect(try await world.state(index) == .connected)
            #expect(try await world.freshToken(index) == "served")
        }

        // tokens-revoked: revoked at once, and the run leaves them alone.
        #expect(try await world.post(signed.tokens[2]).status == 202)
        for index in 0..<2 {
            #expect(try await world.state(index) == .revoked)
            #expect(try await world.freshToken(index) == "revoked")
        }

        // Events that change nothing, then account-purged of the other account.
        let before = try await world.values()
        for token in signed.tokens[4...6] { #expect(try await world.post(token).status == 202) }
        #expect(try await world.values() == before)
        #expect(try await world.post(signed.tokens[3]).status == 202)
        #expect(try await world.state(2) == .scheduledForDeletion)
        #expect(try await world.freshToken(2) == "not_connected")
        #expect(world.google.revokeCalls == 0, "a purge asks Google nothing")
    }

    @Test("token-revoked marks the grant whose refresh token it names, by Google's hash or prefix, and no other; at once everywhere", arguments: backends)
    func tokenRevoked(_ name: String) async throws {
        let world = try await World(name)
        defer { world.google.stop(); world.backend.cleanUp() }
        let hashed = Data(SHA512.hash(data: Data(SHA512.hash(data: Data(world.token(1).utf8))))).base64EncodedString()
        // As Google's table lists it: the members beside subject_type in the event; then in a subject object.
        let byHash: [String: any Sendable] = [
            "subject_type": "oauth_token", "token_type": "refresh_token", "token_identifier_alg": "hash_base64_sha512_sha512", "token": hashed,
        ]
        let byPrefix: [String: any Sendable] = [
            "subject": ["subject_type": "oauth_token", "token_type": "refresh_token", "token_identifier_alg": "prefix", "token": String(world.token(2).prefix(16))]
                as [String: any Sendable]
        ]
        let signed = try PyJWTIssuer.sign([
            PyJWTIssuer.Token(claims: Self.claims(Self.oauth + "token-revoked", "", ["events": [Self.oauth + "token-revoked": byHash] as [String: any Sendable]]), alg: "RS256"),
            PyJWTIssuer.Token(claims: Self.claims(Self.oauth + "token-revoked", "", ["events": [Self.oauth + "token-revoked": byPrefix] as [String: any Sendable]]), alg: "RS256"),
        ])
        world.google.publishRISCKeys(signed.jwks, issuer: Self.issuer)

        #expect(try await world.post(signed.tokens[0]).status == 202)
        #expect(try await world.state(1) == .revoked)
        #expect(try await world.freshToken(1) == "revoked")
        #expect(try await world.state(0) == .connected, "the same Google account's other grant holds another token")
        #expect(try await world.refreshRun()["refreshed"] as? Int == 2)
        #expect(world.google.refreshCount(for: world.token(1)) == 0)

        #expect(try await world.post(signed.tokens[1]).status == 202)
        #expect(try await world.state(2) == .revoked)
        #expect(try await world.freshToken(2) == "revoked")
        #expect(try await world.state(0) == .connected)
        #expect(try await world.freshToken(0) == "served")
    }

    @Test("the same jti delivered again acts once: a reconnect after tokens-revoked is not revoked again", arguments: backends)
    func redelivery(_ name: String) async throws {
        let world = try await World(name)
        defer { world.google.stop(); world.backend.cleanUp() }
        let signed = try PyJWTIssuer.sign([PyJWTIssuer.Token(claims: Self.claims(Self.oauth + "tokens-revoked", world.shared, jti: "jti-\(UUID())"), alg: "RS256")])
        world.google.publishRISCKeys(signed.jwks, issuer: Self.issuer)
        #expect(try await world.post(signed.tokens[0]).status == 202)
        #expect(try await world.state(0) == .revoked)
        world.google.addGrant(refreshToken: "1//risc-again", scope: FakeGoogleGrantSpec.signInWithGmailScope, account: FakeGoogleAccount(subject: world.shared))
        _ = try await world.vault.store(
            IncomingTokens(accessToken: "ya29.again", refreshToken: "1//risc-again", scopes: [GmailScopes.readonly], subject: world.shared, clientID: Self.clients[0]),
            for: world.user(0)
        )
        #expect(try await world.state(0) == .connected)
        #expect(try await world.post(signed.tokens[0]).status == 202)
        #expect(try await world.state(0) == .connected, "the redelivered event acted again")
        #expect(try await world.state(1) == .revoked)
    }

    @Test("forged tokens are 400 with RFC 8935's error and change nothing", arguments: backends)
    func forgeries(_ name: String) async throws {
        let world = try await World(name)
        defer { world.google.stop(); world.backend.cleanUp() }
        let type = Self.risc + "account-disabled"
        let good = Self.claims(type, world.shared)
        let signed = try PyJWTIssuer.sign([
            PyJWTIssuer.Token(claims: good, alg: "RS256"),
            PyJWTIssuer.Token(claims: Self.claims(type, world.shared, ["aud": "someone-elses.apps.googleusercontent.com"]), alg: "RS256"),
            PyJWTIssuer.Token(claims: Self.claims(type, world.shared, ["iss": "https://attacker.example/"]), alg: "RS256"),
            PyJWTIssuer.Token(claims: good, alg: "RS256", kid: "rotated-away"),
        ])
        let stranger = try PyJWTIssuer.sign([PyJWTIssuer.Token(claims: good, alg: "RS256")])  // another key under the same kid
        world.google.publishRISCKeys(signed.jwks, issuer: Self.issuer)
        let segments = signed.tokens[0].split(separator: ".").map(String.init)
        let noneHeader = Self.base64URL(Array(#"{"alg":"none","kid":"pyjwt-rsa"}"#.utf8))
        // HS256 keyed with the published RSA key's PEM (the algorithm-confusion attack).
        let hmacHeader = Self.base64URL(Array(#"{"alg":"HS256","kid":"pyjwt-rsa"}"#.utf8))
        let mac = HMAC<SHA256>.authenticationCode(for: Array((hmacHeader + "." + segments[1]).utf8), using: SymmetricKey(data: Array(try Self.publicKeyPEM(signed.jwks).utf8)))
        let forged: [(String, String)] = [
            (stranger.tokens[0], "invalid_key"),
            (noneHeader + "." + segments[1] + ".", "invalid_key"),
            (hmacHeader + "." + segments[1] + "." + Self.base64URL(Array(mac)), "invalid_key"),
            (signed.tokens[1], "invalid_audience"),
            (signed.tokens[2], "invalid_issuer"),
            (signed.tokens[3], "invalid_key"),
            (segments[0] + "." + segments[1] + "." + segments[2].dropLast(6), "invalid_key"),
        ]
        let before = try await world.values()
        for (token, err) in forged {
            let (status, body) = try await world.post(token)
            #expect(status == 400, "\(err): \(body)")
            let object = (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: String]
            #expect(object?["err"] == err && object?["description"]?.isEmpty == false, "\(body)")
        }
        #expect(try await world.values() == before)
        // The control: the genuine token acts.
        #expect(try await world.post(signed.tokens[0]).status == 202)
        #expect(try await world.state(0) == .disabled)
    }

    @Test("the store down while acting: 503, so Google delivers again; nothing half-done")
    func storeDown() async throws {
        let world = try await World("embedded")
        defer { world.google.stop(); world.backend.cleanUp() }
        let signed = try PyJWTIssuer.sign([PyJWTIssuer.Token(claims: Self.claims(Self.oauth + "tokens-revoked", world.shared), alg: "RS256")])
        world.google.publishRISCKeys(signed.jwks, issuer: Self.issuer)
        var unreachable = try ReplayBackend.unreachableAWSEnvironment()
        for key in ["GOOGLE_TOKEN_ENDPOINT", "GOOGLE_REVOKE_ENDPOINT", "GOOGLE_RISC_CONFIGURATION_URL"] { unreachable[key] = world.environment[key] }
        let (status, _) = try await world.post(signed.tokens[0], environment: unreachable)
        #expect(status == 503)
        // Delivered again once the store is back, it acts.
        #expect(try await world.post(signed.tokens[0]).status == 202)
        #expect(try await world.state(0) == .revoked)
        #expect(try await world.state(1) == .revoked)
    }

    /// PyJWT's published RSA key (`kid` pyjwt-rsa) as PEM, read back from its JWKS.
    static func publicKeyPEM(_ jwks: String) throws -> String {
        let set = try #require(try JSONSerialization.jsonObject(with: Data(jwks.utf8)) as? [String: Any])
        let jwk = try #require((set["keys"] as? [[String: Any]])?.first { $0["kid"] as? String == "pyjwt-rsa" })
        func bytes(_ name: String) throws -> Data {
            var text = try #require(jwk[name] as? String).replacing("-", with: "+").replacing("_", with: "/")
            text += String(repeating: "=", count: (4 - text.count % 4) % 4)
            return try #require(Data(base64Encoded: text))
        }
        return try _RSA.Signing.PublicKey(n: bytes("n"), e: bytes("e")).pemRepresentation
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacing("+", with: "-").replacing("/", with: "_").replacing("=", with: "")
    }
}
