#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The tags written with every token set, so that the refresh job can select due sets from
/// a listing and the profile can tell the connection state, both without reading (or being
/// allowed to read) the value. The value stays the authority once read.
public enum TokenSetTags {
    /// `active`, `revoked` or `rejected`.
    public static let status = "paypulse:status"
    /// The access token's expiry, whole seconds since 1970 (sortable, parseable).
    public static let expiresAt = "paypulse:expires-at"
    /// `true` when the set holds a refresh token and is active.
    public static let refreshable = "paypulse:refreshable"
    /// `false` while Google has not confirmed the stored refresh token: the next refresh
    /// run takes it whatever its expiry.
    public static let verified = "paypulse:verified"

    /// The tags describing `tokenSet`.
    public static func tags(for tokenSet: GmailTokenSet) -> [String: String] {
        [
            status: tokenSet.status.rawValue,
            expiresAt: String(Int64(tokenSet.expiresAt.timeIntervalSince1970.rounded(.down))),
            refreshable: tokenSet.isRefreshable ? "true" : "false",
            verified: tokenSet.verified ? "true" : "false",
        ]
    }

    /// The expiry a listing shows, if the tag is there and readable.
    public static func expiry(from tags: [String: String]) -> Date? {
        tags[expiresAt].flatMap(Int64.init).map { Date(timeIntervalSince1970: Double($0)) }
    }
}

extension TokenSetTags {
    /// Whether a listing's tags show a set the refresh job never touches until the user
    /// reconnects: revoked, rejected as another client's, or without a refresh token.
    public static func isSettled(_ tags: [String: String]) -> Bool {
        let status = tags[Self.status]
        return status == GmailTokenSet.Status.revoked.rawValue || status == GmailTokenSet.Status.rejected.rawValue
            || tags[refreshable] == "false"
    }

    /// Whether a listing's tags show a set stored unverified (Google unreachable at connect).
    public static func awaitsVerification(_ tags: [String: String]) -> Bool { tags[verified] == "false" }
}
