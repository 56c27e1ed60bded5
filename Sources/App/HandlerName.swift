/// The functions this backend deploys, by executable name.
public enum HandlerName: String, Sendable, CaseIterable {
    /// `POST /v1/auth/gmail-tokens`.
    case storeTokens = "store-tokens"
    /// `GET /v1/user/me`.
    case userProfile = "user-profile"
    /// The scheduled refresh of expiring grants.
    case tokenRefresh = "token-refresh"
    /// `DELETE /v1/auth/gmail-tokens`.
    case disconnect
    /// A usable access token for one user, invoked directly by PayPulse's Gmail readers.
    case freshToken = "fresh-token"

    /// Whether one invocation makes its few calls one after another (everything but a
    /// refresh run, which keeps many transfers in flight).
    public var servesOneRequestAtATime: Bool { self != .tokenRefresh }
}
