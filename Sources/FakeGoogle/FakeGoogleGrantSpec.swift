import Foundation

/// A grant the stand-in Google should know, as `events/manifest.json` (`google_grants`) and
/// `paypulse serve --grants FILE` write it: a JSON object with `refresh_token`, `scope`,
/// and optionally `sub`, `email`, `email_verified`, `expires_in`, `issued_to`,
/// `refreshes_before_revocation`, `unavailable_for` (see ``FakeGoogleAccount``).
package struct FakeGoogleGrantSpec: Decodable, Sendable, Equatable {
    /// The refresh token that names the grant.
    package var refreshToken: String
    /// The granted scopes, space-separated.
    package var scope: String
    /// Whose grant it is and how Google treats it.
    package var account: FakeGoogleAccount

    /// Google Sign-In's scopes with Gmail read access: what the iOS app asks for.
    package static let signInWithGmailScope =
        "openid https://www.googleapis.com/auth/userinfo.email https://www.googleapis.com/auth/gmail.readonly"

    /// Creates a grant description.
    package init(refreshToken: String, scope: String = signInWithGmailScope, account: FakeGoogleAccount = FakeGoogleAccount()) {
        self.refreshToken = refreshToken
        self.scope = scope
        self.account = account
    }

    private enum CodingKeys: String, CodingKey {
        case refreshToken = "refresh_token", scope, sub, email, emailVerified = "email_verified", expiresIn = "expires_in"
        case issuedTo = "issued_to", refreshesBeforeRevocation = "refreshes_before_revocation", unavailableFor = "unavailable_for"
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        refreshToken = try container.decode(String.self, forKey: .refreshToken)
        guard !refreshToken.isEmpty else {
            throw DecodingError.dataCorruptedError(forKey: .refreshToken, in: container, debugDescription: "an empty refresh_token")
        }
        scope = try container.decodeIfPresent(String.self, forKey: .scope) ?? Self.signInWithGmailScope
        account = FakeGoogleAccount(
            subject: try container.decodeIfPresent(String.self, forKey: .sub),
            email: try container.decodeIfPresent(String.self, forKey: .email),
            emailVerified: try container.decodeIfPresent(Bool.self, forKey: .emailVerified) ?? true,
            issuedTo: try container.decodeIfPresent(String.self, forKey: .issuedTo),
            expiresIn: try container.decodeIfPresent(Int.self, forKey: .expiresIn) ?? 3599,
            refreshesBeforeRevocation: try container.decodeIfPresent(Int.self, forKey: .refreshesBeforeRevocation),
            unavailableFor: try container.decodeIfPresent(Int.self, forKey: .unavailableFor) ?? 0
        )
    }

    /// The grants in a JSON document: one grant, a list of grants, or an object whose
    /// `google_grants` is one (so `events/manifest.json` loads as it is).
    /// - Throws: `DecodingError` naming what is wrong.
    package static func list(fromJSON data: Data) throws -> [FakeGoogleGrantSpec] {
        if let list = try? JSONDecoder().decode([FakeGoogleGrantSpec].self, from: data) { return list }
        if let manifest = try? JSONDecoder().decode(Manifest.self, from: data) { return manifest.googleGrants }
        return [try JSONDecoder().decode(FakeGoogleGrantSpec.self, from: data)]
    }

    private struct Manifest: Decodable {
        var googleGrants: [FakeGoogleGrantSpec]
        enum CodingKeys: String, CodingKey { case googleGrants = "google_grants" }
    }
}
