#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseAWS
import PayPulseDomain
import PayPulsePorts

// Shorthands for the tests written when the vault spoke to a ``SecretStore``: they build
// the vault and the job on ``SecretsManagerGrantStore`` over the store they already have
// (so the calls they count are the adapter's), and name the secret a grant lives in.

extension UserID {
    /// The secret that holds this user's grant on a secret store: `gmail/user/{id}`.
    package var secretName: String { SecretsManagerGrantStore.secretName(of: rawValue) }
}

extension TokenVault {
    /// A vault over grants kept as secrets in `secrets` (see
    /// ``TokenVault/init(grants:now:lostRace:random:)`` for the rest).
    package init(
        secrets: any SecretStore, now: @escaping @Sendable () -> Date = { Date() }, lostRace: RetryPolicy = .lostRace,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0...1) }
    ) {
        self.init(grants: SecretsManagerGrantStore(secrets), now: now, lostRace: lostRace, random: random)
    }
}

extension RefreshJob {
    /// The secret-name prefix of every user's grant.
    package static var prefix: String { SecretsManagerGrantStore.prefix }

    /// A job over grants kept as secrets in `secrets`.
    /// - Parameter listPrefix: a secret-name prefix, ``prefix`` or longer (a shorter one lists everyone).
    package init(
        secrets: any SecretStore, refresher: TokenRefresher, settings: RefreshSettings, listPrefix: String = RefreshJob.prefix,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        let userPrefix = listPrefix.hasPrefix(Self.prefix) ? String(listPrefix.dropFirst(Self.prefix.count)) : ""
        self.init(grants: SecretsManagerGrantStore(secrets), refresher: refresher, settings: settings, userPrefix: userPrefix, now: now)
    }
}
