#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseConfiguration
import PayPulseDomain
import PayPulseHandlers
import PayPulseRuntime

/// The functions this backend deploys, by executable name.
public enum HandlerName: String, Sendable, CaseIterable {
    /// `POST /v1/auth/gmail-tokens`.
    case storeTokens = "store-tokens"
    /// `GET /v1/user/me`.
    case userProfile = "user-profile"
}

extension AppEnvironment {
    /// The event handlers of one function, built once (keys, clients) for many events.
    public func eventHandlers(for name: HandlerName) async throws -> EventHandlers {
        let guardian = RequestGuard(authenticator: try await Authenticator(settings: authSettings))
        let vault = TokenVault(secrets: backends.secrets)
        let logger = logger
        switch name {
        case .storeTokens:
            let handler = StoreTokensHandler(guardian: guardian, vault: vault)
            return EventHandlers(http: { await handler.handle($0, logger: logger) })
        case .userProfile:
            let handler = UserProfileHandler(guardian: guardian, users: backends.users, vault: vault)
            return EventHandlers(http: { await handler.handle($0, logger: logger) })
        }
    }
}
