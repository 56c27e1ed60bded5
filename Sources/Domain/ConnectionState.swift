import PayPulsePorts

/// Whether a user's Gmail is connected, as far as the grant state tells (its listing
/// attributes and deletion date; the token set is never read).
package enum ConnectionState: String, Sendable, Equatable {
    /// No token set is stored.
    case notConnected
    /// A token set is stored and not known to be dead.
    case connected
    /// Google refused the grant; the user must consent again.
    case revoked
    /// Google refused the refresh token as issued to another OAuth client.
    case rejected
    /// Google disabled the Google account; connected again when Google enables it.
    case disabled
    /// Disconnected: the grant waits out its recovery window.
    case scheduledForDeletion

    /// What `gmail_account_connected` reports.
    package var isConnected: Bool { self == .connected }

    /// What the grant state says of `user`, without reading the grant's value.
    ///
    /// - Parameters:
    ///   - user: The user.
    ///   - grants: The grants' states.
    /// - Returns: ``notConnected`` when no grant is stored; otherwise what its deletion date
    ///   and status attribute say.
    /// - Throws: The store's error when it cannot be read.
    package static func of(_ user: UserID, in grants: any GrantStates) async throws -> ConnectionState {
        let state: GrantState
        do {
            state = try await grants.state(of: user.rawValue)
        } catch let error as StoreError where error == .notFound {
            return .notConnected
        }
        if state.isScheduledForDeletion { return .scheduledForDeletion }
        switch state.attributes[TokenSetTags.status] {
        case GmailTokenSet.Status.revoked.rawValue: return .revoked
        case GmailTokenSet.Status.rejected.rawValue: return .rejected
        case GmailTokenSet.Status.disabled.rawValue: return .disabled
        default: return .connected
        }
    }
}
