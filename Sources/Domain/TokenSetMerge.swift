#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a store-tokens call did to the stored grant.
public enum StoreOutcome: String, Sendable, Equatable {
    /// Nothing was stored before (or the old grant had been disconnected).
    case firstConnection
    /// The same Google account: tokens renewed.
    case updated
    /// Another Google account replaced the stored one.
    case accountSwitched

    /// The message the API answers with.
    public var message: String {
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
    ///   grant is known dead (`revoked`): then the set is stored without one, so the app
    ///   asks for consent again instead of the refresh job retrying a dead token.
    /// - Another account replaces the whole set; without a refresh token it is stored as
    ///   not refreshable.
    /// - Accounts are compared by email, case-insensitively; when either side has no email
    ///   the app did not say, and the account is taken to be the same.
    /// - Any reconnect makes the set `active` again.
    public static func merging(_ incoming: IncomingTokens, over previous: GmailTokenSet?, now: Date) -> (GmailTokenSet, StoreOutcome) {
        let expiresAt = now.addingTimeInterval(Double(incoming.expiresIn))
        let incomingScope = incoming.scopes?.joined(separator: " ")
        guard let previous else {
            let set = GmailTokenSet(
                accessToken: incoming.accessToken, refreshToken: incoming.refreshToken, tokenType: incoming.tokenType,
                expiresAt: expiresAt, scope: incomingScope ?? "", googleEmail: incoming.email, connectedAt: now, updatedAt: now
            )
            return (set, .firstConnection)
        }
        if isSameAccount(previous.googleEmail, incoming.email) {
            let keptRefreshToken = previous.status == .revoked ? nil : previous.refreshToken
            let set = GmailTokenSet(
                accessToken: incoming.accessToken, refreshToken: incoming.refreshToken ?? keptRefreshToken, tokenType: incoming.tokenType,
                expiresAt: expiresAt, scope: incomingScope ?? previous.scope, googleEmail: incoming.email ?? previous.googleEmail,
                connectedAt: previous.connectedAt, updatedAt: now
            )
            return (set, .updated)
        }
        let set = GmailTokenSet(
            accessToken: incoming.accessToken, refreshToken: incoming.refreshToken, tokenType: incoming.tokenType,
            expiresAt: expiresAt, scope: incomingScope ?? "", googleEmail: incoming.email, connectedAt: now, updatedAt: now
        )
        return (set, .accountSwitched)
    }

    private static func isSameAccount(_ stored: String?, _ incoming: String?) -> Bool {
        guard let stored, let incoming else { return true }
        return stored.lowercased() == incoming.lowercased()
    }
}
