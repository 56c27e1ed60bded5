import PayPulseAWS
import PayPulsePorts
import PayPulseDomain

/// Where token sets, configuration secrets and users live, for one process.
package struct Backends: Sendable {
    /// Configuration secrets (the Google client ID, the JWT key), and the token sets when
    /// ``grants`` is served from them.
    package let secrets: any SecretStore
    /// Where token sets live.
    package let grants: any GrantStore
    /// Where users live.
    package let users: any UserDirectory

    /// Creates backends from ports.
    /// - Parameter grants: where token sets live; by default secrets `gmail/user/{id}` in `secrets`.
    package init(secrets: any SecretStore, grants: (any GrantStore)? = nil, users: any UserDirectory) {
        self.secrets = secrets
        self.grants = grants ?? SecretsManagerGrantStore(secrets)
        self.users = users
    }
}
