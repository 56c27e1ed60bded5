import Foundation
import PayPulseDomain
import Testing

/// Format 2 of the stored document adds the Google account's subject and the verification
/// state; format 1 documents are still read.
@Suite("Token set format 2")
struct TokenSetFormatTwoTests {
    let verifiedAt = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("subject, email_verified, verified and verified_at round-trip")
    func roundTrip() throws {
        let set = GmailTokenSet(
            accessToken: "a", refreshToken: "r", expiresAt: verifiedAt, scope: "s", googleEmail: "jane@gmail.com",
            googleSubject: "109876543210987654321", emailVerified: true, verified: true, verifiedAt: verifiedAt,
            connectedAt: verifiedAt, updatedAt: verifiedAt
        )
        let json = try set.jsonString()
        #expect(json.contains(#""google_sub":"109876543210987654321""#) && json.contains(#""email_verified":true"#))
        #expect(json.contains(#""verified":true"#) && json.contains(#""verified_at":"2027-01-15T08:00:00Z""#) && json.contains(#""version":2"#))
        #expect(try GmailTokenSet.decode(json) == set)
    }

    @Test("a format 1 document reads as verified, without subject, and is written back as format 2")
    func formatOne() throws {
        let legacy = #"{"access_token":"a","connected_at":"2027-01-01T00:00:00Z","expires_at":"2027-01-01T01:00:00Z","google_email":"jane@gmail.com","refresh_token":"r","scope":"s","status":"active","token_type":"Bearer","updated_at":"2027-01-01T00:00:00Z","version":1}"#
        let set = try GmailTokenSet.decode(legacy)
        #expect(set.version == 1 && set.verified && set.googleSubject == nil && set.verifiedAt == nil && set.emailVerified == nil)
        #expect(try set.jsonString().contains(#""version":2"#))
    }

    @Test("an unverified set says so in its tags; a rejected one is settled like a revoked one")
    func tags() {
        var set = GmailTokenSet(accessToken: "a", refreshToken: "r", expiresAt: verifiedAt, scope: "s", googleEmail: nil, verified: false, connectedAt: verifiedAt, updatedAt: verifiedAt)
        var tags = TokenSetTags.tags(for: set)
        #expect(tags[TokenSetTags.verified] == "false" && TokenSetTags.awaitsVerification(tags) && !TokenSetTags.isSettled(tags))
        set.verified = true
        set.status = .rejected
        tags = TokenSetTags.tags(for: set)
        #expect(tags[TokenSetTags.status] == "rejected" && tags[TokenSetTags.refreshable] == "false" && TokenSetTags.isSettled(tags))
        #expect(!TokenSetTags.awaitsVerification(tags))
    }
}
