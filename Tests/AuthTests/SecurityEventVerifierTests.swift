import Foundation
import PayPulseDomain
import PayPulsePorts
import PayPulseTestSupport
import Testing
import _CryptoExtras

/// Google's Security Event Tokens (Cross-Account Protection, RFC 8417), signed by PyJWT:
/// every event type read, Google's subject shapes, the issuer's trailing slash, and each
/// forgery refused with its RFC 8935 `err`; keys that cannot be fetched are "try again",
/// never the sender's fault.
@Suite("Security Event Tokens from Google's Cross-Account Protection")
struct SecurityEventVerifierTests {
    private typealias Fixture = SecurityEventFixture

    @Test("a token of each event type verifies and is read: subject, account-disabled's reason, verification's state, token-revoked's token")
    func eachEventType() async throws {
        let account = GoogleAccountSubject(subject: Fixture.googleSubject, issuer: Fixture.issuer)
        let hashed: [String: any Sendable] = [
            "subject_type": "oauth_token", "token_type": "refresh_token", "token_identifier_alg": "hash_base64_sha512_sha512", "token": "aGFzaGVkLWlk",
        ]
        let prefixed: [String: any Sendable] = ["subject_type": "oauth_token", "token_type": "refresh_token", "token_identifier_alg": "prefix", "token": "1//0gPrefix12345"]
        let cases: [(String, [String: any Sendable], SecurityEvent)] = [
            (Fixture.risc + "sessions-revoked", ["subject": Fixture.accountSubject], SecurityEvent(type: .sessionsRevoked, subject: .googleAccount(account))),
            (Fixture.risc + "account-disabled", ["subject": Fixture.accountSubject, "reason": "hijacking"],
             SecurityEvent(type: .accountDisabled, subject: .googleAccount(account), reason: .hijacking)),
            (Fixture.risc + "account-disabled", ["subject": Fixture.accountSubject, "reason": "bulk-account"],
             SecurityEvent(type: .accountDisabled, subject: .googleAccount(account), reason: .bulkAccount)),
            (Fixture.risc + "account-disabled", ["subject": Fixture.accountSubject], SecurityEvent(type: .accountDisabled, subject: .googleAccount(account))),
            (Fixture.risc + "account-enabled", ["subject": Fixture.accountSubject], SecurityEvent(type: .accountEnabled, subject: .googleAccount(account))),
            (Fixture.risc + "account-purged", ["subject": Fixture.accountSubject], SecurityEvent(type: .accountPurged, subject: .googleAccount(account))),
            (Fixture.risc + "account-credential-change-required", ["subject": Fixture.accountSubject],
             SecurityEvent(type: .accountCredentialChangeRequired, subject: .googleAccount(account))),
            (Fixture.risc + "verification", ["state": "stream-check-42"], SecurityEvent(type: .verification, subject: .absent, state: "stream-check-42")),
            (Fixture.oauth + "tokens-revoked", ["subject": Fixture.accountSubject], SecurityEvent(type: .tokensRevoked, subject: .googleAccount(account))),
            (Fixture.oauth + "token-revoked", ["subject": hashed], SecurityEvent(type: .tokenRevoked, subject: .oauthToken(OAuthTokenSubject(
                tokenType: "refresh_token", identifierAlgorithm: .hashBase64SHA512SHA512, identifier: "aGFzaGVkLWlk")))),
            (Fixture.oauth + "token-revoked", ["subject": prefixed], SecurityEvent(type: .tokenRevoked, subject: .oauthToken(OAuthTokenSubject(
                tokenType: "refresh_token", identifierAlgorithm: .prefix, identifier: "1//0gPrefix12345")))),
            // An event type this receiver does not know: the token is still valid.
            ("https://schemas.openid.net/secevent/risc/event-type/recovery-activated", ["subject": Fixture.accountSubject],
             SecurityEvent(type: .other("https://schemas.openid.net/secevent/risc/event-type/recovery-activated"), subject: .googleAccount(account))),
        ]
        let claims = cases.map { Fixture.claims($0.0, $0.1) }
        let signed = try PyJWTIssuer.sign(claims.map { Fixture.token($0) })
        let (verifier, source) = Fixture.verifier(signed)
        for (index, token) in signed.tokens.enumerated() {
            let verified = try await verifier.verify(token, now: AuthFixture.now)
            #expect(verified.events == [cases[index].2], "\(cases[index].0)")
            #expect(verified.jti == claims[index]["jti"] as? String)
            #expect(verified.issuedAt == Date(timeIntervalSince1970: TimeInterval(AuthFixture.nowSeconds - 5)))
        }
        #expect(cases.map(\.2.type.uri) == cases.map(\.0), "each type gives back its URI")
        #expect(await source.fetches == 1, "the keys are kept across tokens")
    }

    @Test("Google's subject shapes: id_token_claims with email, the members beside the type, format iss_sub; unreadable subjects leave the token valid")
    func subjectShapes() async throws {
        let type = Fixture.risc + "account-disabled"
        let cases: [([String: any Sendable], SecurityEventSubject)] = [
            (["subject": ["subject_type": "id_token_claims", "iss": "https://accounts.google.com", "sub": "1234", "email": "ada@gmail.com"] as [String: any Sendable]],
             .googleAccount(GoogleAccountSubject(subject: "1234", issuer: "https://accounts.google.com", email: "ada@gmail.com"))),
            (["subject": ["format": "iss_sub", "iss": Fixture.issuer, "sub": "1234"] as [String: any Sendable]],
             .googleAccount(GoogleAccountSubject(subject: "1234", issuer: Fixture.issuer))),
            (["subject": ["sub": "1234"] as [String: any Sendable]], .googleAccount(GoogleAccountSubject(subject: "1234"))),
            (["subject_type": "iss-sub", "iss": Fixture.issuer, "sub": "1234", "reason": "hijacking"],
             .googleAccount(GoogleAccountSubject(subject: "1234", issuer: Fixture.issuer))),
            (["subject_type": "oauth_token", "token_type": "refresh_token", "token_identifier_alg": "prefix", "token": "1//0gPrefix12345"],
             .oauthToken(OAuthTokenSubject(tokenType: "refresh_token", identifierAlgorithm: .prefix, identifier: "1//0gPrefix12345"))),
            (["subject": ["subject_type": "email", "email": "ada@gmail.com"] as [String: any Sendable]], .unreadable),
            (["subject": ["subject_type": "iss-sub", "iss": Fixture.issuer] as [String: any Sendable]], .unreadable),
            (["subject": ["subject_type": "iss-sub", "sub": 1234] as [String: any Sendable]], .unreadable),
            (["subject": ["subject_type": 7, "sub": "1234"] as [String: any Sendable]], .unreadable),
            (["subject": ["subject_type": "oauth_token", "token_identifier_alg": "sha256", "token": "abc"] as [String: any Sendable]], .unreadable),
            (["subject": ["subject_type": "oauth_token", "token_identifier_alg": "prefix"] as [String: any Sendable]], .unreadable),
            (["subject": "7375626A656374"], .unreadable),
            ([:], .absent),
        ]
        let signed = try PyJWTIssuer.sign(cases.map { Fixture.token(Fixture.claims(type, $0.0)) })
        let (verifier, _) = Fixture.verifier(signed)
        for (index, token) in signed.tokens.enumerated() {
            let verified = try await verifier.verify(token, now: AuthFixture.now)
            #expect(verified.events.map(\.subject) == [cases[index].1], "case \(index)")
        }
        // Only account-disabled reads a reason; a mistyped one is absent, the event still read.
        let odd = try PyJWTIssuer.sign([
            Fixture.token(Fixture.claims(type, ["subject": Fixture.accountSubject, "reason": 3])),
            Fixture.token(Fixture.claims(Fixture.risc + "sessions-revoked", ["subject": Fixture.accountSubject, "reason": "hijacking", "state": "x"])),
            Fixture.token(Fixture.claims(type, ["subject": Fixture.accountSubject, "reason": "compromised"])),
        ])
        let (oddVerifier, _) = Fixture.verifier(odd)
        #expect(try await oddVerifier.verify(odd.tokens[0], now: AuthFixture.now).events.map(\.reason) == [nil])
        let sessions = try await oddVerifier.verify(odd.tokens[1], now: AuthFixture.now).events
        #expect(sessions.map(\.reason) == [nil] && sessions.map(\.state) == [nil])
        #expect(try await oddVerifier.verify(odd.tokens[2], now: AuthFixture.now).events.map(\.reason) == [.other("compromised")])
    }

    @Test("iss is the discovery document's issuer, a trailing slash aside on either side; aud may be a list naming one of our clients")
    func issuerAndAudience() async throws {
        let type = Fixture.risc + "sessions-revoked"
        let signed = try PyJWTIssuer.sign([
            Fixture.token(Fixture.claims(type, ["subject": Fixture.accountSubject], ["iss": "https://accounts.google.com/"])),
            Fixture.token(Fixture.claims(type, ["subject": Fixture.accountSubject], ["iss": "https://accounts.google.com"])),
            Fixture.token(Fixture.claims(type, ["subject": Fixture.accountSubject], ["aud": ["someone-else", Fixture.clientIDs[1]]])),
            Fixture.token(Fixture.claims(type, ["subject": Fixture.accountSubject], ["iss": "https://accounts.google.com//"])),
            Fixture.token(Fixture.claims(type, ["subject": Fixture.accountSubject], ["iss": "https://accounts.google.com.evil.example/"])),
            Fixture.token(Fixture.claims(type, ["subject": Fixture.accountSubject], ["iss": "accounts.google.com"])),
        ])
        for documentIssuer in ["https://accounts.google.com", "https://accounts.google.com/"] {
            let (verifier, _) = Fixture.verifier(signed, issuer: documentIssuer)
            for token in signed.tokens[0...2] {
                #expect(try await verifier.verify(token, now: AuthFixture.now).events.count == 1, "document issuer \(documentIssuer)")
            }
            for token in signed.tokens[3...5] {
                await expectRejected(verifier, token, "invalid_issuer", .wrongIssuer)
            }
        }
    }

    @Test("forgeries, each refused with its RFC 8935 err")
    func forgeries() async throws {
        let type = Fixture.risc + "account-disabled"
        let event: [String: any Sendable] = ["subject": Fixture.accountSubject, "reason": "hijacking"]
        let good = Fixture.claims(type, event)
        let signed = try PyJWTIssuer.sign([
            Fixture.token(good),
            Fixture.token(Fixture.claims(type, event, ["aud": "someone-else.apps.googleusercontent.com"])),
            Fixture.token(Fixture.claims(type, event, ["aud": ["a", "b"]])),
            Fixture.token(Fixture.claims(type, event, ["iss": "https://attacker.example/"])),
            Fixture.token(good, kid: "rotated-away"),
            Fixture.token(Fixture.claims(type, event, ["iat": AuthFixture.nowSeconds + 3600])),
            Fixture.token(Fixture.claims(type, event, ["jti": nil])),
            Fixture.token(Fixture.claims(type, event, ["jti": ""])),
            Fixture.token(Fixture.claims(type, event, ["iat": nil])),
            Fixture.token(Fixture.claims(type, event, ["iat": "yesterday"])),
            Fixture.token(Fixture.claims(type, event, ["aud": nil])),
            Fixture.token(Fixture.claims(type, event, ["iss": nil])),
            Fixture.token(Fixture.claims(type, event, ["events": nil])),
            Fixture.token(Fixture.claims(type, event, ["events": [String: any Sendable]()])),
            Fixture.token(Fixture.claims(type, event, ["events": [type: "account-disabled"]])),
            PyJWTIssuer.Token(claims: good, alg: "ES256"),
            PyJWTIssuer.Token(claims: good, alg: "ES256", kid: Fixture.kid),
            Fixture.token(Fixture.claims(type, event, ["padding": String(repeating: "x", count: SecurityEventVerifier.maximumTokenBytes)])),
        ])
        // Another key under the same kid: a second PyJWT run makes a fresh key named pyjwt-rsa.
        let stranger = try PyJWTIssuer.sign([Fixture.token(good)])
        let (verifier, _) = Fixture.verifier(signed)
        #expect(try await verifier.verify(signed.tokens[0], now: AuthFixture.now).events.first?.reason == .hijacking, "the control verifies")

        await expectRejected(verifier, stranger.tokens[0], "invalid_key", .badSignature)
        await expectRejected(verifier, signed.tokens[1], "invalid_audience", .wrongAudience)
        await expectRejected(verifier, signed.tokens[2], "invalid_audience", .wrongAudience)
        await expectRejected(verifier, signed.tokens[3], "invalid_issuer", .wrongIssuer)
        // A kid the held set lacks is refused for good only by a set fetched for it: after the cool-down.
        await expectRejected(verifier, signed.tokens[4], "invalid_key", .unknownKey, at: AuthFixture.now.addingTimeInterval(61))
        await expectRejected(verifier, signed.tokens[5], "invalid_request", .issuedInFuture)
        await expectRejected(verifier, signed.tokens[6], "invalid_request", .missingID)
        await expectRejected(verifier, signed.tokens[7], "invalid_request", .missingID)
        await expectRejected(verifier, signed.tokens[8], "invalid_request", .missingIssuedAt)
        await expectRejected(verifier, signed.tokens[9], "invalid_request", .missingIssuedAt)
        await expectRejected(verifier, signed.tokens[10], "invalid_request", .missingAudience)
        await expectRejected(verifier, signed.tokens[11], "invalid_request", .missingIssuer)
        await expectRejected(verifier, signed.tokens[12], "invalid_request", .noEvents)
        await expectRejected(verifier, signed.tokens[13], "invalid_request", .noEvents)
        await expectRejected(verifier, signed.tokens[14], "invalid_request", .malformedEvent)
        // ES256 under the EC key of the same set, and ES256 naming the RSA key: RS256 only.
        await expectRejected(verifier, signed.tokens[15], "invalid_key", .algorithmNotAllowed)
        await expectRejected(verifier, signed.tokens[16], "invalid_key", .algorithmNotAllowed)
        // Over 8 KiB, however well signed: refused unparsed.
        await expectRejected(verifier, signed.tokens[17], "invalid_request", .tooLarge)

        let segments = signed.tokens[0].split(separator: ".").map(String.init)
        let payload = segments[1]
        // RS256 header naming the EC key: the key pins ES256.
        let crossed = TokenForge.base64URL(#"{"alg":"RS256","kid":"pyjwt-ec"}"#) + "." + payload + "." + segments[2]
        await expectRejected(verifier, crossed, "invalid_key", .algorithmNotAllowed)
        for alg in ["none", "None"] {
            let header = TokenForge.base64URL(#"{"alg":"\#(alg)","kid":"\#(Fixture.kid)"}"#)
            await expectRejected(verifier, header + "." + payload + ".", "invalid_key", .algorithmNotAllowed)
            await expectRejected(verifier, header + "." + payload + "." + segments[2], "invalid_key", .algorithmNotAllowed)
        }
        let publicKey = try Fixture.publicKey(signed)
        let confusedPayload = String(decoding: try #require(Fixture.base64URLDecoded(payload)), as: UTF8.self)
        for keyBytes in [Array(publicKey.pemRepresentation.utf8), Array(publicKey.derRepresentation)] {
            let confused = try await TokenForge.hmac(header: #"{"alg":"HS256","kid":"\#(Fixture.kid)"}"#, payload: confusedPayload, keyBytes: keyBytes)
            await expectRejected(verifier, confused, "invalid_key", .algorithmNotAllowed)
        }
        let signature = segments[2]
        await expectRejected(verifier, segments[0] + "." + payload + "." + signature.prefix(signature.count / 2), "invalid_key", .badSignature)
        await expectRejected(verifier, segments[0] + "." + payload + "." + signature.dropLast(4), "invalid_key", .badSignature)
        // The claims changed under a genuine signature.
        let tampered = TokenForge.base64URL(confusedPayload.replacing("hijacking", with: "bulk-account"))
        await expectRejected(verifier, segments[0] + "." + tampered + "." + signature, "invalid_key", .badSignature)
        // A header that hands over a key, beside a genuine signature.
        let jku = TokenForge.base64URL(#"{"alg":"RS256","kid":"\#(Fixture.kid)","jku":"https://attacker.example/jwks"}"#)
        await expectRejected(verifier, jku + "." + payload + "." + signature, "invalid_request", .unexpectedHeaderParameter)
    }

    @Test("not a JWT at all: invalid_request, before any key is fetched", arguments: [
        "", "hello", "a.b", "a.b.c.d", "{\"iss\":\"https://accounts.google.com/\"}", "..", "!!!.e30.c2ln", "eyJhbGciOiJSUzI1NiJ9..c2ln", "eyJhbGciOiJSUzI1NiJ9.e30.", "eyJhbGciOiJSUzI1NiJ9.e30.c2ln=",
    ])
    func notAJWT(_ body: String) async throws {
        let source = ScriptedKeySource(document: #"{"keys":[]}"#, issuer: SecurityEventFixture.issuer)
        let verifier = SecurityEventVerifier(keys: source, clientIDs: { SecurityEventFixture.clientIDs })
        do {
            _ = try await verifier.verify(body, now: AuthFixture.now)
            Issue.record("accepted")
        } catch {
            guard case .rejected(let rejection) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(rejection.err == "invalid_request", "\(rejection)")
        }
        #expect(await source.fetches == 0)
    }

    @Test("exp is not checked: a token that expired long ago (a past event) verifies, and so does an iat within the leeway")
    func noExpiryCheck() async throws {
        let type = Fixture.risc + "account-enabled"
        let signed = try PyJWTIssuer.sign([
            Fixture.token(Fixture.claims(type, ["subject": Fixture.accountSubject], ["exp": AuthFixture.nowSeconds - 86_400, "iat": AuthFixture.nowSeconds - 90_000])),
            Fixture.token(Fixture.claims(type, ["subject": Fixture.accountSubject], ["iat": AuthFixture.nowSeconds + SecurityEventVerifier.leeway])),
            Fixture.token(Fixture.claims(type, ["subject": Fixture.accountSubject], ["iat": AuthFixture.nowSeconds + SecurityEventVerifier.leeway + 1])),
        ])
        let (verifier, _) = Fixture.verifier(signed)
        #expect(try await verifier.verify(signed.tokens[0], now: AuthFixture.now).events.first?.type == .accountEnabled)
        #expect(try await verifier.verify(signed.tokens[1], now: AuthFixture.now).events.first?.type == .accountEnabled)
        await expectRejected(verifier, signed.tokens[2], "invalid_request", .issuedInFuture)
        #expect(SecurityEventVerifier.leeway == AuthSettings.maximumLeeway, "the Authenticator's leeway")
    }

    @Test("keys never fetched are unavailable (503, Google redelivers), not invalid; so are client IDs that cannot be read")
    func unavailable() async throws {
        let type = Fixture.risc + "sessions-revoked"
        let signed = try PyJWTIssuer.sign([Fixture.token(Fixture.claims(type))])
        let (verifier, source) = Fixture.verifier(signed)
        await source.setUnreachable(true)
        await #expect(throws: SecurityEventVerifier.Failure.unavailable(reason: "issuer keys unavailable: connection refused")) {
            try await verifier.verify(signed.tokens[0], now: AuthFixture.now)
        }
        // Asked again only after 10 s; then the token verifies.
        _ = try? await verifier.verify(signed.tokens[0], now: AuthFixture.now.addingTimeInterval(5))
        #expect(await source.fetches == 1)
        await source.setUnreachable(false)
        #expect(try await verifier.verify(signed.tokens[0], now: AuthFixture.now.addingTimeInterval(11)).events.count == 1)

        // A source that names no issuer (not a RISC discovery document) cannot check iss;
        // our client IDs unread, or none configured, cannot check aud.
        struct SecretStoreDown: Error {}
        let (noIssuer, _) = Fixture.verifier(signed, issuer: nil)
        let (idsDown, _) = Fixture.verifier(signed, clientIDs: { throw SecretStoreDown() })
        let (noIDs, _) = Fixture.verifier(signed, clientIDs: { [] })
        for (name, verifier) in [("no issuer", noIssuer), ("client IDs unreadable", idsDown), ("no client ID", noIDs)] {
            do {
                _ = try await verifier.verify(signed.tokens[0], now: AuthFixture.now)
                Issue.record("\(name): accepted")
            } catch {
                if case .unavailable = error { continue }
                Issue.record("\(name): \(error)")
            }
        }
    }

    /// A 400 is final for Google, so an unknown `kid` is refused only against a key set
    /// fetched for that very token; within the cool-down it is 503 and Google delivers again.
    @Test("an unknown kid fetches the keys again at most once a minute, however many arrive (503 meanwhile); a rotated-in key is found")
    func unknownKidFlood() async throws {
        let type = Fixture.risc + "sessions-revoked"
        let signed = try PyJWTIssuer.sign((0..<10).map { Fixture.token(Fixture.claims(type), kid: "invented-\($0)") } + [Fixture.token(Fixture.claims(type))])
        let (verifier, source) = Fixture.verifier(signed)
        _ = try await verifier.verify(signed.tokens[10], now: AuthFixture.now)
        for token in signed.tokens[0..<10] {
            await expectUnavailable(verifier, token, at: AuthFixture.now.addingTimeInterval(30))
        }
        #expect(await source.fetches == 1, "the first minute's unknown kids fetch nothing more")
        await expectRejected(verifier, signed.tokens[0], "invalid_key", .unknownKey, at: AuthFixture.now.addingTimeInterval(61))
        for token in signed.tokens[1..<10] {
            await expectUnavailable(verifier, token, at: AuthFixture.now.addingTimeInterval(61))
        }
        #expect(await source.fetches == 2, "a minute later: one fetch for ten unknown kids")

        // Google rotates: the new key's kid causes the one refetch that finds it.
        let rotated = try PyJWTIssuer.sign([Fixture.token(Fixture.claims(type), kid: "rotated-1")])
        let rotatedSet = rotated.jwks.replacing(#""kid":"\#(Fixture.kid)""#, with: #""kid":"rotated-1""#)
        #expect(rotatedSet != rotated.jwks)
        await source.serve(rotatedSet, maxAge: 3600)
        #expect(try await verifier.verify(rotated.tokens[0], now: AuthFixture.now.addingTimeInterval(200)).events.count == 1)
        #expect(await source.fetches == 3)
    }

    private func expectUnavailable(_ verifier: SecurityEventVerifier, _ token: String, at now: Date, sourceLocation: SourceLocation = #_sourceLocation) async {
        do {
            _ = try await verifier.verify(token, now: now)
            Issue.record("accepted", sourceLocation: sourceLocation)
        } catch {
            if case .unavailable = error { return }
            Issue.record("refused for good: \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test("Google's new key, published after an invented kid used up the minute's refetch: 503 (Google delivers again), then verified")
    func rotationAfterFlood() async throws {
        let type = Fixture.risc + "sessions-revoked"
        let signed = try PyJWTIssuer.sign([Fixture.token(Fixture.claims(type)), Fixture.token(Fixture.claims(type), kid: "invented")])
        let (verifier, source) = Fixture.verifier(signed)
        _ = try await verifier.verify(signed.tokens[0], now: AuthFixture.now)
        await expectRejected(verifier, signed.tokens[1], "invalid_key", .unknownKey, at: AuthFixture.now.addingTimeInterval(61))
        let rotated = try PyJWTIssuer.sign([Fixture.token(Fixture.claims(type), kid: "rotated-1")])
        await source.serve(rotated.jwks.replacing(#""kid":"\#(Fixture.kid)""#, with: #""kid":"rotated-1""#), maxAge: 3600)
        await expectUnavailable(verifier, rotated.tokens[0], at: AuthFixture.now.addingTimeInterval(90))
        #expect(try await verifier.verify(rotated.tokens[0], now: AuthFixture.now.addingTimeInterval(122)).events.count == 1)
    }

    @Test("a key set answer with no usable key is a failed fetch: the keys held still verify Google's events")
    func emptyKeySet() async throws {
        let type = Fixture.risc + "sessions-revoked"
        let signed = try PyJWTIssuer.sign([Fixture.token(Fixture.claims(type))])
        let (verifier, source) = Fixture.verifier(signed)
        _ = try await verifier.verify(signed.tokens[0], now: AuthFixture.now)
        await source.serve(#"{"keys":[]}"#, maxAge: 60)
        // Past the held set's lifetime: fetched again, the empty answer ignored.
        #expect(try await verifier.verify(signed.tokens[0], now: AuthFixture.now.addingTimeInterval(100_000)).events.count == 1)
        #expect(await source.fetches == 2)
    }

    @Test("our client IDs are read only for a token whose signature holds")
    func clientIDsAfterSignature() async throws {
        let calls = CallCounter()
        let type = Fixture.risc + "sessions-revoked"
        let signed = try PyJWTIssuer.sign([Fixture.token(Fixture.claims(type))])
        let stranger = try PyJWTIssuer.sign([Fixture.token(Fixture.claims(type))])
        let (verifier, _) = Fixture.verifier(signed, clientIDs: {
            await calls.increment()
            return Fixture.clientIDs
        })
        await expectRejected(verifier, stranger.tokens[0], "invalid_key", .badSignature)
        #expect(await calls.count == 0)
        _ = try await verifier.verify(signed.tokens[0], now: AuthFixture.now)
        #expect(await calls.count == 1)
    }

    @Test("a revoked token's identifier never reaches a description or a dump")
    func identifierRedacted() async throws {
        let subject = OAuthTokenSubject(tokenType: "refresh_token", identifierAlgorithm: .prefix, identifier: "1//0gSecretPrefix")
        let verified = SecurityEventToken(jti: "j", issuedAt: AuthFixture.now, events: [SecurityEvent(type: .tokenRevoked, subject: .oauthToken(subject))])
        var dumped = ""
        dump(verified, to: &dumped)
        for text in [String(describing: verified), String(reflecting: verified), "\(subject)", String(reflecting: subject), dumped] {
            #expect(!text.contains("SecretPrefix"), "\(text)")
            #expect(text.contains("redacted"), "\(text)")
        }
    }
}

/// Counts calls across tasks.
private actor CallCounter {
    private(set) var count = 0
    func increment() { count += 1 }
}
