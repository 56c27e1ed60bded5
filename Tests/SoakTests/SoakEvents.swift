import Foundation
import PayPulseTestSupport

/// The events the soak pipes into the functions (``FunctionEvents``), from its own records.
enum SoakEvents {
    /// `POST /v1/auth/gmail-tokens` with `tokens` as the app's JSON body.
    static func storeTokens(_ tokens: SentTokens, jwt: String) -> Data {
        var body: [String: Any] = [
            "access_token": tokens.accessToken, "expires_in": tokens.expiresIn,
            "scope": tokens.scope.split(separator: " ").map(String.init), "email": tokens.email, "token_type": "Bearer",
        ]
        if let refreshToken = tokens.refreshToken { body["refresh_token"] = refreshToken }
        return FunctionEvents.storeTokens(body, jwt: jwt)
    }

    static func disconnect(jwt: String) -> Data { FunctionEvents.disconnect(jwt: jwt) }
    static func userProfile(jwt: String) -> Data { FunctionEvents.userProfile(jwt: jwt) }
    static func tokenRefresh(shard index: Int, of shards: Int) -> Data { FunctionEvents.tokenRefresh(shard: index, of: shards) }
    static func securityEvent(token: String) -> Data { FunctionEvents.securityEvent(token: token) }
}
