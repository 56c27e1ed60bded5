#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulsePorts

/// The tags written with every token set, so that the refresh job can select due sets from
/// a listing and the profile can tell the connection state, both without reading (or being
/// allowed to read) the value. The value stays the authority once read.
package enum TokenSetTags {
    /// `active`, `revoked`, `rejected` or `disabled`.
    package static let status = "paypulse:status"
    /// The access token's expiry, whole seconds since 1970 (sortable, parseable).
    package static let expiresAt = "paypulse:expires-at"
    /// `true` when the set holds a refresh token and is active.
    package static let refreshable = "paypulse:refreshable"
    /// `false` while Google has not confirmed the stored refresh token: the next refresh
    /// run takes it whatever its expiry.
    package static let verified = "paypulse:verified"
    /// Whole seconds from the value's write to its access token's expiry (Google's
    /// `expires_in`): a refresh that renews the token with the same lifetime writes no tags,
    /// and the listing's last-change date plus this tells the new expiry.
    package static let lifetime = "paypulse:lifetime"
    /// The OAuth client that holds the grant (``GmailTokenSet/googleClientID``), so a
    /// listing shows it; absent while the set names none (the default client's, or not
    /// yet verified).
    package static let client = "paypulse:client"
    /// The Google account's `sub` (``GmailTokenSet/googleSubject``), so Google's security
    /// events find the account's grants (``GrantStore/users(with:equalTo:)``); absent
    /// while unknown.
    package static let googleSubject = IndexedGrantAttribute.googleSubject.rawValue
    /// `pending` while the set's outbox holds lifecycle events to publish (or a deletion
    /// waiting for them), `empty` after: the refresh run's sweep takes the pending ones.
    /// Absent on sets that never recorded an event.
    package static let outbox = "paypulse:outbox"

    /// The tags describing `tokenSet`.
    package static func tags(for tokenSet: GmailTokenSet) -> [String: String] {
        var tags = [
            status: tokenSet.status.rawValue,
            expiresAt: String(Int64(tokenSet.expiresAt.timeIntervalSince1970.rounded(.down))),
            refreshable: tokenSet.isRefreshable ? "true" : "false",
            verified: tokenSet.verified ? "true" : "false",
            // Whole seconds of each, as the stored document keeps them, so a set read back
            // gives the same tag as the one written.
            lifetime: String(Int64(tokenSet.expiresAt.timeIntervalSince1970.rounded(.down)) - Int64(tokenSet.updatedAt.timeIntervalSince1970.rounded(.down))),
        ]
        if let clientID = tokenSet.googleClientID { tags[client] = clientID }
        if let lifecycle = tokenSet.lifecycle { tags[outbox] = lifecycle.hasWork ? "pending" : "empty" }
        if let subject = tokenSet.googleSubject { tags[googleSubject] = subject }
        // The refresh token's keyed digests, so Google's `token-revoked` finds the grant.
        if let digests = tokenSet.refreshTokenDigests {
            tags[IndexedGrantAttribute.refreshTokenPrefix.rawValue] = digests.prefix
            tags[IndexedGrantAttribute.refreshTokenHash.rawValue] = digests.hash
        }
        return tags
    }

    /// The expiry a listing shows, if the tag is there and readable.
    package static func expiry(from tags: [String: String]) -> Date? {
        tags[expiresAt].flatMap(Int64.init).map { Date(timeIntervalSince1970: Double($0)) }
    }

    /// The expiry a listing implies. A refresh that renews the access token with the same
    /// lifetime leaves the tags alone (two calls fewer per refresh), so the expiry tag can
    /// be older than the value: the value's last write (the listing's last-change date)
    /// plus the tagged lifetime is then the later, true expiry (give or take the moments
    /// between Google's answer and the write).
    package static func impliedExpiry(from tags: [String: String], lastChanged: Date?) -> Date? {
        let tagged = expiry(from: tags)
        guard let lastChanged, let seconds = tags[lifetime].flatMap(Int64.init) else { return tagged }
        let written = lastChanged.addingTimeInterval(Double(seconds))
        return tagged.map { max($0, written) } ?? written
    }

    /// Whether `tags` (a version's) still describe `new`, a later write: equal but for the
    /// expiry, which may only be earlier (``impliedExpiry(from:lastChanged:)`` reads the
    /// rest from the write's date).
    package static func stillDescribe(_ tags: [String: String], _ new: GmailTokenSet) -> Bool {
        let wanted = Self.tags(for: new)
        guard wanted.allSatisfy({ $0.key == expiresAt || tags[$0.key] == $0.value }) else { return false }
        guard let tagged = expiry(from: tags) else { return false }
        return tagged <= new.expiresAt
    }
}

extension TokenSetTags {
    /// Whether a listing's tags show a set the refresh job never touches until the user
    /// reconnects (or Google enables the account again): revoked, rejected as another
    /// client's, or not refreshable (no refresh token; a disabled account).
    package static func isSettled(_ tags: [String: String]) -> Bool {
        let status = tags[Self.status]
        return status == GmailTokenSet.Status.revoked.rawValue || status == GmailTokenSet.Status.rejected.rawValue
            || tags[refreshable] == "false"
    }

    /// Whether a listing's tags show a usable grant whose refresh token has no digests (one
    /// stored before the deployment had a digest key): `token-revoked` cannot find it yet.
    package static func lacksDigests(_ tags: [String: String]) -> Bool {
        tags[refreshable] == "true" && tags[IndexedGrantAttribute.refreshTokenPrefix.rawValue] == nil
    }

    /// Whether a listing's tags show a grant as a refresh leaves it: active, refreshable,
    /// verified, nothing pending. A refresh that renews only the access token keeps such
    /// tags on purpose, so tags of this shape stamped for an older version are not a sign of
    /// a failed tag write; the run reads such a grant when it falls due, as any other.
    package static func lookRoutine(_ tags: [String: String]) -> Bool {
        tags[status] == GmailTokenSet.Status.active.rawValue && tags[refreshable] == "true" && tags[verified] == "true"
            && !hasPendingEvents(tags)
    }

    /// Whether a listing shows tags that may not describe the grant's value (their stamp
    /// names another version, or none) and that would keep the refresh run from reading it
    /// (settled, unverified, nothing pending): the run reads it and rewrites them.
    package static func needRewriting(_ grant: GrantSummary) -> Bool {
        grant.attributesVersion != .current && !lookRoutine(grant.attributes)
    }

    /// Whether a listing shows a grant deleted with a newer value than its deleter decided
    /// on (``GrantSummary/mayHoldNewerValue(statusAttribute:deletedStatus:)``).
    package static func deletedTooSoon(_ grant: GrantSummary) -> Bool {
        grant.mayHoldNewerValue(statusAttribute: status, deletedStatus: GmailTokenSet.Status.revoked.rawValue)
    }

    /// Whether a listing's tags show lifecycle events waiting to be published.
    package static func hasPendingEvents(_ tags: [String: String]) -> Bool { tags[outbox] == "pending" }

    /// Whether a listing's tags show a set stored unverified (Google unreachable at connect).
    package static func awaitsVerification(_ tags: [String: String]) -> Bool { tags[verified] == "false" }
}
