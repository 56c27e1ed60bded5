import PayPulseDomain
import PayPulsePorts

extension GrantDuePolicy {
    /// The refresh job's due rule under the default settings (eager, 900 s window): what
    /// the executables key a DynamoDB grant store by unless `REFRESH_MODE` says otherwise.
    package static var defaultRefresh: GrantDuePolicy { .refresh(RefreshSettings()) }
}
