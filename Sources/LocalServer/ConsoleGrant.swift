import Foundation
import PayPulseApp
import PayPulseDomain
import PayPulsePorts

/// One row of the console: a user's grant as stored, never a token.
struct ConsoleGrant: Sendable, Equatable {
    var userID: String
    var userName: String?
    var googleEmail: String?
    /// `connected`, `revoked`, `rejected`, `disconnected`, or `unreadable`.
    var status: String
    var verified: Bool?
    /// The OAuth client that holds the grant, when the set records it.
    var clientID: String?
    var accessTokenExpires: Date?
    var scopes: [String]
    /// The store's date for a disconnected grant; what it means depends on the store
    /// (``DeletionDateMeaning``).
    var deletionDate: Date?
    /// The Google account's latest security event, when the ledger keeps them.
    var lastSecurityEvent: RecordedSecurityEvent?

    /// What a store's deletion date is. The embedded store lists when the deletion was
    /// asked for; DynamoDB lists its purge time (the TTL attribute) and Secrets Manager
    /// (as moto answers `DeletedDate`) the end of the recovery window.
    enum DeletionDateMeaning: Sendable, Equatable {
        /// When the disconnect asked for the deletion.
        case requested
        /// The end of the recovery window: restorable until then, deleted for good after.
        case endOfRecoveryWindow

        /// The meaning of `store`'s deletion date.
        init(store: StoreBackend) {
            self = store == .embedded ? .requested : .endOfRecoveryWindow
        }

        /// The words before the date on the console.
        var label: String {
            switch self {
            case .requested: "deletion requested"
            case .endOfRecoveryWindow: "recoverable until"
            }
        }
    }

    /// Every stored grant (disconnected ones included) with its user, by user id, and its
    /// account's latest security event from `ledger` (none when it keeps none or cannot be read).
    static func all(grants: any GrantStore, users: any UserDirectory, ledger: any SecurityEventLedger) async throws -> [ConsoleGrant] {
        let vault = TokenVault(grants: grants)
        var summaries: [GrantSummary] = []
        var next: String?
        repeat {
            let page = try await grants.list(userPrefix: "", includeDeleted: true, cursor: next, limit: 100)
            summaries += page.grants
            next = page.cursor
        } while next != nil
        var rows: [ConsoleGrant] = [], subjects: [String: String] = [:]
        for summary in summaries {
            guard let user = UserID(summary.user) else { continue }
            var row = ConsoleGrant(
                userID: user.rawValue, userName: try? await users.user(id: user.rawValue)?.name, status: "disconnected", scopes: [],
                deletionDate: summary.deletionDate
            )
            if summary.deletionDate == nil {
                if let set = try? await vault.current(of: user)?.tokenSet {
                    row.status = set.status == .active ? "connected" : set.status.rawValue
                    row.googleEmail = set.googleEmail
                    row.verified = set.verified
                    row.clientID = set.googleClientID
                    row.accessTokenExpires = set.expiresAt
                    row.scopes = set.scopes
                    subjects[user.rawValue] = set.googleSubject
                } else {
                    row.status = "unreadable"
                }
            }
            rows.append(row)
        }
        // The console shows the grants even when the ledger is out of reach.
        if let latest = try? await ledger.latestEvents(of: Array(Set(subjects.values))) {
            for index in rows.indices { rows[index].lastSecurityEvent = subjects[rows[index].userID].flatMap { latest[$0] } }
        }
        return rows.sorted { $0.userID < $1.userID }
    }
}
