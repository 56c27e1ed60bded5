#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The tags written with every token set, so that the refresh job can select due sets from
/// a listing and the profile can tell the connection state, both without reading (or being
/// allowed to read) the value. The value stays the authority once read.
public enum TokenSetTags {
    /// `active` or `revoked`.
    public static let status = "paypulse:status"
    /// The access token's expiry, whole seconds since 1970 (sortable, parseable).
    public static let expiresAt = "paypulse:expires-at"
    /// `true` when the set holds a refresh token and is active.
    public static let refreshable = "paypulse:refreshable"

    /// The tags describing `tokenSet`.
    public static func tags(for tokenSet: GmailTokenSet) -> [String: String] {
        [
            status: tokenSet.status.rawValue,
            expiresAt: String(Int64(tokenSet.expiresAt.timeIntervalSince1970.rounded(.down))),
            refreshable: tokenSet.isRefreshable ? "true" : "false",
        ]
    }

    /// The expiry a listing shows, if the tag is there and readable.
    public static func expiry(from tags: [String: String]) -> Date? {
        tags[expiresAt].flatMap(Int64.init).map { Date(timeIntervalSince1970: Double($0)) }
    }
}
