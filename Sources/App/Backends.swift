import PayPulsePorts

/// Where token sets and users live, for one process.
public struct Backends: Sendable {
    /// Where token sets live.
    public let secrets: any SecretStore
    /// Where users live.
    public let users: any UserDirectory

    /// Creates backends from ports.
    public init(secrets: any SecretStore, users: any UserDirectory) {
        self.secrets = secrets
        self.users = users
    }
}
