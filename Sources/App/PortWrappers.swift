import PayPulsePorts

/// What an ``Assembly`` puts around each port it builds: nothing in the product; a test
/// wraps the ports in recorders (or puts a stand-in for Google) to see what each
/// function's composition calls.
public struct PortWrappers: Sendable {
    /// Around each ``SecretStore``.
    public var secrets: @Sendable (any SecretStore) -> any SecretStore = { $0 }
    /// Around each ``UserDirectory``.
    public var users: @Sendable (any UserDirectory) -> any UserDirectory = { $0 }
    /// Around each ``GrantStore``.
    public var grants: @Sendable (any GrantStore) -> any GrantStore = { $0 }
    /// Around each ``GrantStates``.
    public var states: @Sendable (any GrantStates) -> any GrantStates = { $0 }
    /// Around (or instead of) each ``GoogleOAuth``.
    public var google: @Sendable (any GoogleOAuth) -> any GoogleOAuth = { $0 }

    /// Wrappers that change nothing.
    public init() {}
}
