/// Whether a user's Gmail is connected, as far as the stored secret's metadata tells.
public enum ConnectionState: String, Sendable, Equatable {
    /// No token set is stored.
    case notConnected
    /// A token set is stored and not known to be dead.
    case connected
    /// Google refused the grant; the user must consent again.
    case revoked
    /// Google refused the refresh token as issued to another OAuth client.
    case rejected
    /// Disconnected: the secret waits out its recovery window.
    case scheduledForDeletion

    /// What `gmail_account_connected` reports.
    public var isConnected: Bool { self == .connected }
}
