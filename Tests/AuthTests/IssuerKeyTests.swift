import Crypto
import Foundation
import _CryptoExtras
import PayPulseDomain
import PayPulsePorts
import Testing

/// `PAYPULSE_AUTH_MODE=jwks`: RS256 and ES256 tokens verified under the keys an issuer
/// publishes, the algorithm taken from the key, the provider shapes (Cognito, Firebase,
/// generic OIDC), and the key cache (lifetime, unknown `kid`, an unreachable issuer).
@Suite("Tokens verified under an issuer's published keys")
struct IssuerKeyTests {
    private static func authenticator(_ source: ScriptedKeySource, settings: AuthSettings? = nil) throws -> Authenticator {
        Authenticator(settings: try settings ?? TestIssuer.settings(), issuerKeys: source)
    }

    private static func user(_ token: String, _ authenticator: Authenticator, at now: Date = AuthFixture.now) async throws -> AuthenticatedUser {
        try await authenticator.authenticate(authorizationHeader: "Bearer \(token)", authorizerClaims: nil, now: now)
    }

    @Test("RS256 and ES256 tokens verify under the key their kid names; no fetch happens before the first token")
    func bothAlgorithms() async throws {
        let source = ScriptedKeySource(document: try TestIssuer.standardKeySet())
        let authenticator = try Self.authenticator(source)
        #expect(await source.fetches == 0, "building the authenticator fetches nothing")
        #expect(try await Self.user(try TestIssuer.rs256(), authenticator).userID.rawValue == "user-1")
        #expect(try await Self.user(try TestIssuer.es256(), authenticator).userID.rawValue == "user-1")
        #expect(await source.fetches == 1, "the set is kept across requests")
    }

    @Test("a set of one key needs no kid; a set of several does")
    func kidRules() async throws {
        let single = try Self.authenticator(ScriptedKeySource(document: TestIssuer.keySet([try TestIssuer.rsaJWK(kid: nil)])))
        #expect(try await Self.user(try TestIssuer.rs256(kid: nil), single).userID.rawValue == "user-1")
        let several = try Self.authenticator(ScriptedKeySource(document: try TestIssuer.standardKeySet()))
        await expectRefused(several, header: "Bearer \(try TestIssuer.rs256(kid: nil))", .unknownKey)
    }

    @Test("the key pins the algorithm: a token naming an RSA key with alg ES256 (or the reverse) fails before any signature check")
    func keyPinsAlgorithm() async throws {
        let authenticator = try Self.authenticator(ScriptedKeySource(document: try TestIssuer.standardKeySet()))
        // Header says ES256 and names the RSA key; signed with the EC key.
        let crossed = try TestIssuer.es256(header: TestIssuer.header(alg: "ES256", kid: "rsa-1"))
        await expectRefused(authenticator, header: "Bearer \(crossed)", .algorithmNotAllowed)
        let reverse = try TestIssuer.rs256(header: TestIssuer.header(alg: "RS256", kid: "ec-1"))
        await expectRefused(authenticator, header: "Bearer \(reverse)", .algorithmNotAllowed)
        // A set that states another alg for an RSA key leaves that key out: beside a usable
        // key, the token naming it is refused; alone, the set has no usable key, a failed fetch (503).
        let mixed = try Self.authenticator(ScriptedKeySource(document: TestIssuer.keySet([
            try TestIssuer.rsaJWK(kid: "ps", extra: #","alg":"PS256""#), TestIssuer.ecJWK(),
        ])))
        await expectRefused(mixed, header: "Bearer \(try TestIssuer.rs256(kid: "ps"))", .unknownKey)
        let mislabelled = try Self.authenticator(ScriptedKeySource(document: TestIssuer.keySet([try TestIssuer.rsaJWK(extra: #","alg":"PS256""#)])))
        await expectRefused(mislabelled, header: "Bearer \(try TestIssuer.rs256())", .keysUnavailable)
    }

    @Test("keys the set marks for encryption, symmetric keys and other curves are left out; the rest still verify")
    func unusableKeysLeftOut() async throws {
        let set = TestIssuer.keySet([
            try TestIssuer.rsaJWK(kid: "enc", extra: #","use":"enc""#),
            try TestIssuer.rsaJWK(kid: "wrap", extra: #","key_ops":["wrapKey"]"#),
            #"{"kty":"oct","kid":"oct","k":"\#(TokenForge.base64URL(AuthFixture.key))"}"#,
            #"{"kty":"EC","crv":"P-384","kid":"p384","x":"AAAA","y":"AAAA"}"#,
            #"{"kty":"OKP","crv":"Ed25519","kid":"ed","x":"AAAA"}"#,
            "42", #"{"kid":"no-type"}"#,
            try TestIssuer.rsaJWK(extra: #","use":"sig","alg":"RS256","key_ops":["verify"]"#),
        ])
        let authenticator = try Self.authenticator(ScriptedKeySource(document: set))
        #expect(try await Self.user(try TestIssuer.rs256(), authenticator).userID.rawValue == "user-1")
        for kid in ["enc", "wrap"] {
            await expectRefused(authenticator, header: "Bearer \(try TestIssuer.rs256(kid: kid))", .unknownKey)
        }
        // HS256 naming the symmetric key: refused by the header rule, never looked up.
        let hmac = try await TokenForge.hmac(header: #"{"alg":"HS256","kid":"oct"}"#, payload: TestIssuer.payload())
        await expectRefused(authenticator, header: "Bearer \(hmac)", .algorithmNotAllowed)
    }

    @Test("Cognito: ID tokens by aud, access tokens by client_id without aud, token_use checked when configured")
    func cognitoShapes() async throws {
        let issuer = "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Example1"
        let clientID = "3n4b5urk1ft4fl3mg5e62d9ado"
        let source = ScriptedKeySource(document: try TestIssuer.standardKeySet())
        let idToken = TestIssuer.payload([
            "iss": #""\#(issuer)""#, "aud": #""\#(clientID)""#, "token_use": #""id""#, "auth_time": "\(AuthFixture.nowSeconds - 60)",
            "cognito:username": #""ada""#, "email": #""ada@example.com""#,
        ])
        let accessToken = TestIssuer.payload([
            "iss": #""\#(issuer)""#, "aud": nil, "client_id": #""\#(clientID)""#, "token_use": #""access""#,
            "scope": #""aws.cognito.signin.user.admin""#, "username": #""ada""#,
        ])
        let any = try Self.authenticator(source, settings: TestIssuer.settings(issuer: issuer, audience: clientID))
        #expect(try await Self.user(try TestIssuer.rs256(payload: idToken), any).email == "ada@example.com")
        #expect(try await Self.user(try TestIssuer.rs256(payload: accessToken), any).userID.rawValue == "user-1")

        let accessOnly = try Self.authenticator(source, settings: TestIssuer.settings(tokenUse: "access", issuer: issuer, audience: clientID))
        #expect(try await Self.user(try TestIssuer.rs256(payload: accessToken), accessOnly).userID.rawValue == "user-1")
        await expectRefused(accessOnly, header: "Bearer \(try TestIssuer.rs256(payload: idToken))", .wrongTokenUse)

        let otherClient = TestIssuer.payload(["iss": #""\#(issuer)""#, "aud": nil, "client_id": #""another-client""#])
        await expectRefused(any, header: "Bearer \(try TestIssuer.rs256(payload: otherClient))", .wrongAudience)
        let neither = TestIssuer.payload(["iss": #""\#(issuer)""#, "aud": nil])
        await expectRefused(any, header: "Bearer \(try TestIssuer.rs256(payload: neither))", .wrongAudience)
        // aud present and wrong: client_id does not rescue it.
        let both = TestIssuer.payload(["iss": #""\#(issuer)""#, "aud": #""someone-else""#, "client_id": #""\#(clientID)""#])
        await expectRefused(any, header: "Bearer \(try TestIssuer.rs256(payload: both))", .wrongAudience)
    }

    @Test("Firebase: iss securetoken.google.com/PROJECT, aud PROJECT, auth_time and iat in the past")
    func firebaseShape() async throws {
        let project = "paypulse-demo"
        let settings = try TestIssuer.settings(issuer: "https://securetoken.google.com/\(project)", audience: project)
        let authenticator = try Self.authenticator(ScriptedKeySource(document: try TestIssuer.standardKeySet()), settings: settings)
        func token(authTime: Int, issuedAt: Int = AuthFixture.nowSeconds - 10) throws -> String {
            try TestIssuer.rs256(payload: TestIssuer.payload([
                "iss": #""https://securetoken.google.com/\#(project)""#, "aud": #""\#(project)""#, "auth_time": "\(authTime)",
                "iat": "\(issuedAt)", "user_id": #""user-1""#, "firebase": #"{"sign_in_provider":"apple.com","identities":{}}"#,
            ]))
        }
        #expect(try await Self.user(try token(authTime: AuthFixture.nowSeconds - 86_400), authenticator).userID.rawValue == "user-1")
        await expectRefused(authenticator, header: "Bearer \(try token(authTime: AuthFixture.nowSeconds + 3600))", .notYetValid)
        await expectRefused(authenticator, header: "Bearer \(try token(authTime: AuthFixture.nowSeconds - 60, issuedAt: AuthFixture.nowSeconds + 3600))", .notYetValid)
        // Another project's token, signed by the same Google keys.
        let other = try TestIssuer.rs256(payload: TestIssuer.payload(["iss": #""https://securetoken.google.com/other""#, "aud": #""other""#]))
        await expectRefused(authenticator, header: "Bearer \(other)", .wrongIssuer)
    }

    @Test("an at+jwt access token (RFC 9068) of a generic OIDC issuer verifies; exp is required as under hs256")
    func genericIssuer() async throws {
        let authenticator = try Self.authenticator(ScriptedKeySource(document: try TestIssuer.standardKeySet()))
        let typed = try TestIssuer.es256(header: #"{"typ":"at+jwt","alg":"ES256","kid":"ec-1"}"#)
        #expect(try await Self.user(typed, authenticator).userID.rawValue == "user-1")
        await expectRefused(authenticator, header: "Bearer \(try TestIssuer.es256(payload: TestIssuer.payload(["exp": nil])))", .missingExpiry)
        await expectRefused(authenticator, header: "Bearer \(try TestIssuer.es256(payload: TestIssuer.payload(["sub": #""../user-2""#])))", .unsafeSubject)
    }

    /// The keys held may predate the key that signed a token: only a set fetched for the
    /// request says its `kid` does not exist (401); within the cool-down it is 503, so a
    /// flood of invented `kid`s cannot turn a real user's new key into a refusal.
    @Test("an unknown kid fetches again at most once a minute, however many arrive; meanwhile 503, not 401")
    func unknownKidFlood() async throws {
        let source = ScriptedKeySource(document: try TestIssuer.standardKeySet())
        let authenticator = try Self.authenticator(source)
        _ = try await Self.user(try TestIssuer.rs256(), authenticator)
        for index in 0..<50 {
            let token = try TestIssuer.rs256(kid: "invented-\(index)")
            await expectRefused(authenticator, header: "Bearer \(token)", .keysUnavailable)
        }
        #expect(await source.fetches == 1, "the first minute's unknown kids fetch nothing more")
        let later = AuthFixture.now.addingTimeInterval(61)
        for index in 0..<50 {
            do {
                _ = try await Self.user(try TestIssuer.rs256(kid: "invented-\(index)"), authenticator, at: later)
                Issue.record("an invented kid was accepted")
            } catch {
                // The first is checked against the set fetched for it; the rest wait out the cool-down.
                #expect(error as? AuthenticationError == (index == 0 ? .unknownKey : .keysUnavailable))
            }
        }
        #expect(await source.fetches == 2, "a minute later: one fetch for fifty unknown kids")
    }

    @Test("a key the issuer published after an invented kid used up the minute's refetch: 503 until the next refetch finds it")
    func rotationAfterFlood() async throws {
        let source = ScriptedKeySource(document: TestIssuer.keySet([try TestIssuer.rsaJWK()]), maxAge: 3600)
        let authenticator = try Self.authenticator(source)
        _ = try await Self.user(try TestIssuer.rs256(), authenticator)
        let at = { (seconds: Double) in AuthFixture.now.addingTimeInterval(seconds) }
        // Someone posts an invented kid: the one refetch of the minute.
        await expectRefused(authenticator, header: "Bearer \(try TestIssuer.rs256(kid: "invented"))", .unknownKey, at: at(61))
        let newKey = P256.Signing.PrivateKey()
        await source.serve(TestIssuer.keySet([try TestIssuer.rsaJWK(), TestIssuer.ecJWK(newKey.publicKey, kid: "ec-2")]), maxAge: 3600)
        let real = try TestIssuer.es256(kid: "ec-2", key: newKey)
        await expectRefused(authenticator, header: "Bearer \(real)", .keysUnavailable, at: at(90))
        #expect(try await Self.user(real, authenticator, at: at(122)).userID.rawValue == "user-1")
        #expect(await source.fetches == 3)
    }

    @Test("a rotated-in key is found by the one refetch its new kid causes")
    func rotation() async throws {
        let source = ScriptedKeySource(document: TestIssuer.keySet([try TestIssuer.rsaJWK()]), maxAge: 3600)
        let authenticator = try Self.authenticator(source)
        _ = try await Self.user(try TestIssuer.rs256(), authenticator)
        let newKey = P256.Signing.PrivateKey()
        await source.serve(TestIssuer.keySet([try TestIssuer.rsaJWK(), TestIssuer.ecJWK(newKey.publicKey, kid: "ec-2")]), maxAge: 3600)
        let later = AuthFixture.now.addingTimeInterval(120)
        #expect(try await Self.user(try TestIssuer.es256(kid: "ec-2", key: newKey), authenticator, at: later).userID.rawValue == "user-1")
        #expect(await source.fetches == 2)
    }

    @Test("a key removed from the set fails once the cache expires (max-age bounded to at least a minute)")
    func removedKey() async throws {
        let source = ScriptedKeySource(document: try TestIssuer.standardKeySet(), maxAge: 0)
        let authenticator = try Self.authenticator(source)
        let token = try TestIssuer.es256()
        #expect(try await Self.user(token, authenticator).userID.rawValue == "user-1")
        await source.serve(TestIssuer.keySet([try TestIssuer.rsaJWK()]), maxAge: 300)
        // max-age 0 is held to the one-minute floor: still cached 30 s later.
        #expect(try await Self.user(token, authenticator, at: AuthFixture.now.addingTimeInterval(30)).userID.rawValue == "user-1")
        #expect(await source.fetches == 1)
        do {
            _ = try await Self.user(token, authenticator, at: AuthFixture.now.addingTimeInterval(61))
            Issue.record("a removed key still verified after the cache expired")
        } catch { #expect(error as? AuthenticationError == .unknownKey) }
        #expect(await source.fetches == 2)
    }

    @Test("no key set ever fetched is unavailable (503), not unauthorized; held keys survive an outage")
    func unreachableIssuer() async throws {
        let source = ScriptedKeySource(document: try TestIssuer.standardKeySet(), maxAge: 60)
        await source.setUnreachable(true)
        let authenticator = try Self.authenticator(source)
        do {
            _ = try await Self.user(try TestIssuer.rs256(), authenticator)
            Issue.record("accepted without keys")
        } catch {
            #expect(error as? AuthenticationError == .keysUnavailable && (error as? AuthenticationError)?.isUnavailable == true)
        }
        // Within 10 s of a failure nothing is asked again.
        _ = try? await Self.user(try TestIssuer.rs256(), authenticator, at: AuthFixture.now.addingTimeInterval(5))
        #expect(await source.fetches == 1)
        await source.setUnreachable(false)
        let recovered = AuthFixture.now.addingTimeInterval(11)
        #expect(try await Self.user(try TestIssuer.rs256(), authenticator, at: recovered).userID.rawValue == "user-1")
        // Expired and the issuer down again: the held keys still verify.
        await source.setUnreachable(true)
        #expect(try await Self.user(try TestIssuer.rs256(), authenticator, at: recovered.addingTimeInterval(120)).userID.rawValue == "user-1")
        #expect(await source.fetches == 3)
    }

    @Test("an answer that is not a key set, or larger than 64 KiB, gives no keys")
    func unusableAnswers() async throws {
        let padding = String(repeating: " ", count: 1 << 20)
        let unusable = [#"{"keys":[]}"#, TestIssuer.keySet([#"{"kty":"oct","kid":"rsa-1","k":"c2VjcmV0"}"#])]
        for document in ["<html>not json</html>", #"{"keys":"none"}"#, "[]", #"{"keys":[\#(try TestIssuer.rsaJWK())]}"# + padding] + unusable {
            let source = ScriptedKeySource(document: document)
            await expectRefused(try Self.authenticator(source), header: "Bearer \(try TestIssuer.rs256())", .keysUnavailable)
        }
        // With keys already held, a broken answer to an unknown kid's refetch changes nothing.
        let source = ScriptedKeySource(document: try TestIssuer.standardKeySet())
        let authenticator = try Self.authenticator(source)
        _ = try await Self.user(try TestIssuer.rs256(), authenticator)
        await source.serve("not json")
        await expectRefused(authenticator, header: "Bearer \(try TestIssuer.rs256(kid: "new"))", .keysUnavailable)
        #expect(try await Self.user(try TestIssuer.rs256(), authenticator, at: AuthFixture.now.addingTimeInterval(90)).userID.rawValue == "user-1")
        // A set that parses but holds no usable key is a failed fetch too: the held keys stay.
        for document in unusable {
            let source = ScriptedKeySource(document: try TestIssuer.standardKeySet(), maxAge: 60)
            let authenticator = try Self.authenticator(source)
            _ = try await Self.user(try TestIssuer.rs256(), authenticator)
            await source.serve(document, maxAge: 60)
            #expect(try await Self.user(try TestIssuer.rs256(), authenticator, at: AuthFixture.now.addingTimeInterval(120)).userID.rawValue == "user-1")
            #expect(await source.fetches == 2, "expired, fetched again, and the empty answer ignored")
        }
    }

    @Test("concurrent requests that need the keys share one fetch")
    func sharedFetch() async throws {
        let source = ScriptedKeySource(document: try TestIssuer.standardKeySet())
        let authenticator = try Self.authenticator(source)
        let token = try TestIssuer.es256()
        try await withThrowingTaskGroup(of: AuthenticatedUser.self) { group in
            for _ in 0..<20 { group.addTask { try await Self.user(token, authenticator) } }
            for try await user in group { #expect(user.userID.rawValue == "user-1") }
        }
        #expect(await source.fetches == 1)
    }
}
