import Foundation
import PayPulseDomain
import PayPulsePorts
import Testing

/// A grant's refresh token as Google's `token-revoked` names it: keyed digests of both
/// identifiers, in the document and the listing, never the token, and never stale.
@Suite("Refresh-token digests")
struct RefreshTokenDigestsTests {
    static let key = "test-token-digest-key-0123456789abcdef"
    static let token = "1//0gAbCdEfGhIjKlMnOpQrStUvWxYz-0123456789"
    /// Base64 of SHA-512 of SHA-512 of ``token``, made by Python's hashlib.
    static let googleHash = "F/qXPzPxP4YI6TeuieUMmRGARX5fo+IkCZgQIhYbaAQodU5JH80/mvVO5x4JEH8bN2UxGxxMSv0tBQgvR38wmw=="
    let digester = RefreshTokenDigester(key: key)!

    @Test("the digests are HMAC-SHA-256 of the algorithm and the identifier under the key (Python's hmac gives the same)")
    func knownAnswer() {
        let digests = digester.digests(of: Self.token)
        #expect(digests.prefix == "xuOaAfKpiGvOJRhIdNJ5eDkYRVza617yrsols6Wapvw")
        #expect(digests.hash == "uyxh2fHlK75WHpVVrA18_aF2Ew7NJRjOuGN4N2ldW88")
        #expect(RefreshTokenDigester(key: Self.key + "x")!.digests(of: Self.token) != digests, "another key, other digests")
    }

    @Test("an event's identifier gives the grant's digest: the prefix; the hash in either base64 alphabet, padded or not")
    func eventIdentifiers() {
        let digests = digester.digests(of: Self.token)
        func subject(_ algorithm: OAuthTokenSubject.IdentifierAlgorithm, _ identifier: String) -> OAuthTokenSubject {
            OAuthTokenSubject(tokenType: "refresh_token", identifierAlgorithm: algorithm, identifier: identifier)
        }
        #expect(digester.digest(of: subject(.prefix, String(Self.token.prefix(16)))) == digests.prefix)
        #expect(digester.digest(of: subject(.hashBase64SHA512SHA512, Self.googleHash)) == digests.hash)
        let urlSafe = String(Self.googleHash.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 }.filter { $0 != "=" })
        #expect(digester.digest(of: subject(.hashBase64SHA512SHA512, urlSafe)) == digests.hash)
        #expect(digester.digest(of: subject(.hashBase64SHA512SHA512, "bm90IGEgaGFzaA==")) == nil, "not 64 bytes")
        #expect(digester.digest(of: subject(.hashBase64SHA512SHA512, "not base64!")) == nil)
        #expect(digester.digest(of: subject(.prefix, Self.googleHash)) != digests.hash, "the algorithm is part of the digest")
    }

    @Test("a key under 32 characters makes no digester")
    func shortKey() {
        #expect(RefreshTokenDigester(key: String(repeating: "k", count: 31)) == nil)
        #expect(RefreshTokenDigester(key: String(repeating: "k", count: 32)) != nil)
    }

    @Test("a new refresh token drops the old one's digests; the same token keeps them; the document and the listing carry them")
    func staysTrue() throws {
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        var set = GmailTokenSet(
            accessToken: "ya29.a", refreshToken: Self.token, expiresAt: now, scope: "", googleEmail: nil, connectedAt: now, updatedAt: now,
            refreshTokenDigests: digester.digests(of: Self.token)
        )
        let read = try GmailTokenSet.decode(try set.jsonString())
        #expect(read.refreshTokenDigests == digester.digests(of: Self.token))
        let tags = TokenSetTags.tags(for: set)
        #expect(tags[IndexedGrantAttribute.refreshTokenPrefix.rawValue] == set.refreshTokenDigests?.prefix)
        #expect(tags[IndexedGrantAttribute.refreshTokenHash.rawValue] == set.refreshTokenDigests?.hash)
        #expect(!(try set.jsonString()).contains(Self.googleHash) && !tags.values.contains { $0.contains(Self.token.prefix(16)) })

        set.refreshToken = Self.token
        #expect(set.refreshTokenDigests != nil)
        set.refreshToken = "1//rotated"
        #expect(set.refreshTokenDigests == nil)
        #expect(TokenSetTags.tags(for: set)[IndexedGrantAttribute.refreshTokenHash.rawValue] == nil)
        #expect(throws: (any Error).self) { try GmailTokenSet.decode(#"{"access_token":"a","expires_at":"2026-01-01T00:00:00Z","rt_digests":{"prefix":"p"}}"#) }
    }

    @Test("the client secret's token_digest_key: kept when long enough, refused when short or not text, absent from a plain ID")
    func clientSecretKey() throws {
        let clients = try GoogleClients.parse(#"{"client_ids":["a.apps"],"token_digest_key":"\#(Self.key)"}"#, secretID: "s")
        #expect(clients.tokenDigester == digester)
        #expect(try GoogleClients.parse("a.apps", secretID: "s").tokenDigester == nil)
        #expect(throws: GoogleClients.LoadError.self) { try GoogleClients.parse(#"{"client_id":"a.apps","token_digest_key":"short"}"#, secretID: "s") }
        #expect(throws: GoogleClients.LoadError.self) { try GoogleClients.parse(#"{"client_id":"a.apps","token_digest_key":42}"#, secretID: "s") }
    }

    @Test("the secret's one writer: one ID as client_id, several as client_ids, each read back with the key; text that would not parse is refused")
    func clientSecretText() throws {
        let one = try GoogleClients.secretText(ids: ["a.apps"], digestKey: Self.key, secretID: "s")
        #expect(one.contains(#""client_id":"a.apps""#))
        #expect(try GoogleClients.parse(one, secretID: "s") == GoogleClients(ids: ["a.apps"], tokenDigester: digester))
        let two = try GoogleClients.secretText(ids: ["a.apps", "b.apps"], digestKey: Self.key, secretID: "s")
        #expect(try GoogleClients.parse(two, secretID: "s") == GoogleClients(ids: ["a.apps", "b.apps"], tokenDigester: digester))
        #expect(GoogleClients.digestKey(in: two) == Self.key && GoogleClients.digestKey(in: "a.apps") == nil)
        #expect(throws: GoogleClients.LoadError.self) { try GoogleClients.secretText(ids: ["a b"], digestKey: Self.key, secretID: "s") }
        #expect(throws: GoogleClients.LoadError.self) { try GoogleClients.secretText(ids: ["a.apps", "a.apps"], digestKey: Self.key, secretID: "s") }
        #expect(throws: GoogleClients.LoadError.self) { try GoogleClients.secretText(ids: ["a.apps"], digestKey: "short", secretID: "s") }
    }
}
