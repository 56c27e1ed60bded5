import Foundation
import PayPulseDomain
import Testing

@Suite("The stored token set document")
struct GmailTokenSetTests {
    let set = GmailTokenSet(
        accessToken: "ya29.secret-access", refreshToken: "1//secret-refresh", expiresAt: Date(timeIntervalSince1970: 1_800_000_000.7),
        scope: "https://www.googleapis.com/auth/gmail.readonly", googleEmail: "jane@gmail.com",
        connectedAt: Date(timeIntervalSince1970: 1_700_000_000), updatedAt: Date(timeIntervalSince1970: 1_700_000_100)
    )

    @Test("JSON has the storage contract's fields, RFC 3339 UTC dates, and round-trips")
    func coding() throws {
        let json = try set.jsonString()
        #expect(json.contains("\"expires_at\":\"2027-01-15T08:00:00Z\""))
        #expect(json.contains("\"status\":\"active\"") && json.contains("\"version\":2") && json.contains("\"token_type\":\"Bearer\""))
        #expect(json.contains("\"scope\":\"https://www.googleapis.com/auth/gmail.readonly\""))
        let decoded = try GmailTokenSet.decode(json)
        #expect(decoded.expiresAt == Date(timeIntervalSince1970: 1_800_000_000))
        #expect(decoded.refreshToken == set.refreshToken && decoded.googleEmail == set.googleEmail)
        #expect(try decoded.jsonString() == json)
    }

    @Test("a stored document on fixed bytes reads and writes back byte for byte")
    func fixedBytes() throws {
        let stored = #"{"access_token":"ya29.a","connected_at":"2026-11-01T10:00:00Z","email_verified":true,"expires_at":"2026-11-25T12:00:00Z","#
            + #""google_email":"jane.smith@gmail.com","google_sub":"108234567890123456789","refresh_token":"1//r","scope":"openid","#
            + #""status":"revoked","token_type":"Bearer","updated_at":"2026-11-25T11:00:01Z","verified":false,"#
            + #""verified_at":"2026-11-20T09:00:00Z","version":2}"#
        let set = try GmailTokenSet.decode(stored)
        #expect(set.status == .revoked && !set.verified && set.emailVerified == true && set.googleSubject == "108234567890123456789")
        #expect(set.verifiedAt == RFC3339.date(from: "2026-11-20T09:00:00Z") && set.connectedAt == RFC3339.date(from: "2026-11-01T10:00:00Z"))
        #expect(try set.jsonString() == stored)
        // Members of the wrong type or an unknown status are refused, not defaulted.
        for broken in [#""status":"revoked""#: #""status":"gone""#, #""verified":false"#: #""verified":"false""#, #""version":2"#: #""version":"2""#] {
            #expect(throws: (any Error).self) { try GmailTokenSet.decode(stored.replacingOccurrences(of: broken.key, with: broken.value)) }
        }
    }

    @Test("a set without a refresh token omits the field; junk is refused")
    func optionalAndJunk() throws {
        var noRefresh = set
        noRefresh.refreshToken = nil
        #expect(!(try noRefresh.jsonString()).contains("refresh_token"))
        #expect(throws: (any Error).self) { try GmailTokenSet.decode("{\"access_token\": 1}") }
        #expect(throws: (any Error).self) { try GmailTokenSet.decode("not json") }
    }

    @Test("printing a token set shows no token")
    func redacted() {
        for text in [String(describing: set), String(reflecting: set), "\(set)"] {
            #expect(!text.contains("secret-access") && !text.contains("secret-refresh"))
        }
    }

    @Test("tags carry status, expiry in epoch seconds, refreshability, verification and the token's lifetime")
    func tags() {
        let tags = TokenSetTags.tags(for: set)
        let lifetime = String(Int64(set.expiresAt.timeIntervalSince1970.rounded(.down)) - Int64(set.updatedAt.timeIntervalSince1970.rounded(.down)))
        #expect(
            tags == [
                "paypulse:status": "active", "paypulse:expires-at": "1800000000", "paypulse:refreshable": "true", "paypulse:verified": "true",
                "paypulse:lifetime": lifetime,
            ]
        )
        #expect(TokenSetTags.expiry(from: tags) == Date(timeIntervalSince1970: 1_800_000_000))
        var revoked = set
        revoked.status = .revoked
        #expect(TokenSetTags.tags(for: revoked)["paypulse:refreshable"] == "false")
    }
}

@Suite("What a listing implies about expiry")
struct ImpliedExpiryTests {
    private static func set(expiresIn: Double, updatedAt: Date = Date(timeIntervalSince1970: 1_800_000_000)) -> GmailTokenSet {
        GmailTokenSet(
            accessToken: "a", refreshToken: "r", tokenType: "Bearer", expiresAt: updatedAt.addingTimeInterval(expiresIn), scope: GmailScopes.readonly,
            googleEmail: nil, connectedAt: updatedAt, updatedAt: updatedAt
        )
    }

    @Test("tagged expiry, or the last write plus the tagged lifetime when later")
    func implied() {
        let tags = TokenSetTags.tags(for: Self.set(expiresIn: 3599))
        let written = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(TokenSetTags.impliedExpiry(from: tags, lastChanged: nil) == written.addingTimeInterval(3599))
        #expect(TokenSetTags.impliedExpiry(from: tags, lastChanged: written) == written.addingTimeInterval(3599))
        // Refreshed twice since, tags untouched.
        let later = written.addingTimeInterval(6000)
        #expect(TokenSetTags.impliedExpiry(from: tags, lastChanged: later) == later.addingTimeInterval(3599))
        // Tags from before the lifetime tag existed: the expiry tag alone.
        var old = tags
        old[TokenSetTags.lifetime] = nil
        #expect(TokenSetTags.impliedExpiry(from: old, lastChanged: later) == written.addingTimeInterval(3599))
    }

    @Test("tags still describe a later set only when nothing but an earlier expiry differs")
    func stillDescribe() {
        let first = Self.set(expiresIn: 3599)
        let tags = TokenSetTags.tags(for: first)
        #expect(TokenSetTags.stillDescribe(tags, Self.set(expiresIn: 3599, updatedAt: first.updatedAt.addingTimeInterval(3000))))
        #expect(!TokenSetTags.stillDescribe(tags, Self.set(expiresIn: 60, updatedAt: first.updatedAt.addingTimeInterval(3000))))
        #expect(!TokenSetTags.stillDescribe(tags, Self.set(expiresIn: 3599, updatedAt: first.updatedAt.addingTimeInterval(-10))))
        var revoked = Self.set(expiresIn: 3599, updatedAt: first.updatedAt.addingTimeInterval(3000))
        revoked.status = .revoked
        #expect(!TokenSetTags.stillDescribe(tags, revoked))
    }
}
