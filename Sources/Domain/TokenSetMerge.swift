#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a store-tokens call did to the stored grant.
package enum StoreOutcome: String, Sendable, Equatable {
    /// Nothing was stored before (or the old grant had been disconnected).
    case firstConnection
    /// The same Google account: tokens renewed.
    case updated
    /// Another Google account replaced the stored one.
    case accountSwitched

    /// The message the API answers with.
    package var message: String {
        switch self {
        case .firstConnection: "First Gmail connection"
        case .updated: "Gmail tokens updated"
        case .accountSwitched: "Gmail account switched"
        }
    }
}

extension GmailTokenSet {
    /// The token set to store when the app posts `incoming` over `previous`.
    ///
    /// - The same account keeps its stored refresh token when none is sent, unless that
    ///   grant is known dead (`revoked`) or another client's (`rejected`): then the set is
    ///   stored without one, so the app asks for consent again instead of the refresh job
    ///   retrying a dead token. A `disabled` account's token is kept unverified: the user
    ///   could sign in, so Google may have enabled the account, and the next refresh run asks.
    /// - The same account's grant that Google refused or disabled stays so (not connected)
    ///   until Google proves a refresh token: a new one at this store, or the refresh run's
    ///   answer for a token it holds unverified. Only the app's word (an access token, or a
    ///   refresh token Google could not check now) never reconnects it.
    /// - Another account replaces the whole set; without a refresh token it is stored as
    ///   not refreshable.
    /// - A set stored without a refresh token of its own is unverified: only a refresh token
    ///   is proved at Google (the same account's kept token keeps its verification).
    /// - Accounts are the same when their Google subjects (`sub`) are equal, whatever the
    ///   addresses say (an address can be renamed). Only when either side has no subject
    ///   (a set stored before verification, or a body without a refresh token) are emails
    ///   compared, case-insensitively; when either side has no email the account is taken
    ///   to be the same.
    /// - Any other reconnect makes the set `active`.
    package static func merging(_ incoming: IncomingTokens, over previous: GmailTokenSet?, now: Date) -> (GmailTokenSet, StoreOutcome) {
        let expiresAt = now.addingTimeInterval(Double(incoming.expiresIn))
        let incomingScope = incoming.scopes?.joined(separator: " ")
        // Only a refresh token is proved at Google: a set without one is the app's word. The
        // proof is dated by Google's answer, not by this write: a write that lands late (a
        // retry after a lost race, a slow store) must not outdate an event Google issued
        // after it answered.
        let confirmed = incoming.verified && incoming.refreshToken != nil
        let verifiedAt: Date? = confirmed ? incoming.provedAt ?? now : nil
        guard let previous else {
            let set = GmailTokenSet(
                accessToken: incoming.accessToken, refreshToken: incoming.refreshToken, tokenType: incoming.tokenType,
                expiresAt: expiresAt, scope: incomingScope ?? "", googleEmail: incoming.email, googleSubject: incoming.subject,
                emailVerified: incoming.emailVerified, googleClientID: incoming.clientID, verified: confirmed, verifiedAt: verifiedAt,
                connectedAt: now, updatedAt: now
            )
            return (set, .firstConnection)
        }
        if isSameAccount(previous, incoming) {
            let keepsRefreshToken = incoming.refreshToken == nil && (previous.status == .active || previous.status == .disabled)
            let keepsVerification = keepsRefreshToken && previous.status == .active
            // Google's refusal or disablement stands until Google proves a refresh token.
            let status: Status = previous.status == .active || confirmed ? .active : previous.status
            var set = GmailTokenSet(
                accessToken: incoming.accessToken, refreshToken: keepsRefreshToken ? previous.refreshToken : incoming.refreshToken,
                tokenType: incoming.tokenType, expiresAt: expiresAt, scope: incomingScope ?? previous.scope,
                googleEmail: incoming.email ?? previous.googleEmail,
                // A grant Google ended keeps its account only for a token Google proves: an
                // unproved one may be another account's, and Google's word on the old account
                // must not follow it.
                googleSubject: incoming.subject ?? (previous.status == .active || keepsRefreshToken ? previous.googleSubject : nil),
                emailVerified: incoming.email == nil ? previous.emailVerified : incoming.emailVerified,
                // The kept refresh token keeps the client that holds it.
                googleClientID: keepsRefreshToken ? previous.googleClientID : incoming.clientID,
                verified: keepsVerification ? previous.verified : keepsRefreshToken ? false : confirmed,
                verifiedAt: keepsRefreshToken ? previous.verifiedAt : verifiedAt,
                connectedAt: previous.connectedAt, updatedAt: now, status: status, accountEventAt: previous.accountEventAt
            )
            // Still refused or disabled: a refresh token held is unverified (the refresh run
            // asks Google); without one there is nothing to ask, and Google's word is final.
            if status != .active { set.verified = set.refreshToken == nil }
            return (set, .updated)
        }
        let set = GmailTokenSet(
            accessToken: incoming.accessToken, refreshToken: incoming.refreshToken, tokenType: incoming.tokenType,
            expiresAt: expiresAt, scope: incomingScope ?? "", googleEmail: incoming.email, googleSubject: incoming.subject,
            emailVerified: incoming.emailVerified, googleClientID: incoming.clientID, verified: confirmed, verifiedAt: verifiedAt,
            connectedAt: now, updatedAt: now
        )
        return (set, .accountSwitched)
    }

    /// Subjects decide when both sides have one; otherwise emails (case-insensitive), and
    /// an email missing on either side counts as the same account.
    static func isSameAccount(_ stored: GmailTokenSet, _ incoming: IncomingTokens) -> Bool {
        if let storedSubject = stored.googleSubject, let incomingSubject = incoming.subject { return storedSubject == incomingSubject }
        guard let storedEmail = stored.googleEmail, let incomingEmail = incoming.email else { return true }
        return storedEmail.lowercased() == incomingEmail.lowercased()
    }
}

extension GmailTokenSet {
    /// The lifecycle event a store writing this set over `previous` makes (docs/events.md):
    /// a first connection (after a disconnect when `disconnected`), an account switch, or
    /// the same account reconnected (a new refresh token, or usable again); `nil` when the
    /// connection did not change (the access token renewed alone, or a refused grant still
    /// waiting for Google's word).
    func storeEvent(
        outcome: StoreOutcome, over previous: GmailTokenSet?, disconnected: Bool
    ) -> (kind: LifecycleEvent.Kind, reason: String, previous: LifecycleEvent.Status)? {
        guard let previous else { return (.connected, "user_connected", disconnected ? .disconnected : .notConnected) }
        switch outcome {
        case .accountSwitched:
            return (.accountSwitched, "account_switched", LifecycleEvent.Status(previous))
        case .updated where status == .active && (previous.status != .active || refreshToken != previous.refreshToken):
            return (.reconnected, "user_reconnected", LifecycleEvent.Status(previous))
        case .updated, .firstConnection:
            return nil
        }
    }
}
