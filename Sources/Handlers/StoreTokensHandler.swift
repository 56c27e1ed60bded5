#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PayPulseDomain
import PayPulsePorts

/// `POST /v1/auth/gmail-tokens`: stores the token set the app got from Google Sign-In.
public struct StoreTokensHandler: APIRouteHandler {
    let guardian: RequestGuard
    let vault: TokenVault

    /// Creates the handler.
    public init(guardian: RequestGuard, vault: TokenVault) {
        self.guardian = guardian
        self.vault = vault
    }

    public func respond(to request: APIRequest, logger: Logger) async throws(APIError) -> APIResponse {
        let user = try await guardian.admit(request, method: "POST", logger: logger)
        var logger = logger
        logger[metadataKey: "user_id"] = "\(user.userID)"

        let incoming = try StoreTokensBody.parse(body: request.body, contentType: request.headers["content-type"])
        // Nothing is stored without the scope PayPulse needs: the app asks for it first.
        if let scopes = incoming.scopes, !scopes.contains(GmailScopes.readonly) {
            logger.info("store-tokens refused: gmail.readonly not granted")
            throw .missingScope(GmailScopes.readonly)
        }

        let result: TokenVault.StoreResult
        do {
            result = try await vault.store(incoming, for: user.userID)
        } catch let error as StoreError {
            logger.error("store-tokens failed", metadata: ["error": "\(error)"])
            throw APIError(storeError: error)
        } catch {
            logger.error("store-tokens failed", metadata: ["error": "\(type(of: error))"])
            throw .internalError
        }
        logger.info("gmail tokens stored", metadata: [
            "outcome": "\(result.outcome.rawValue)", "refreshable": "\(result.tokenSet.isRefreshable)",
        ])
        return .json(status: 201, StoreTokensReply(
            message: "Gmail OAuth tokens stored successfully!",
            data: .init(
                google_email: result.tokenSet.googleEmail, scope: result.tokenSet.scope,
                account_switch: result.outcome == .accountSwitched, message: result.outcome.message
            )
        ))
    }
}

/// The 201 body of the reference contract.
struct StoreTokensReply: Encodable {
    struct Data: Encodable {
        var google_email: String?
        var scope: String
        var account_switch: Bool
        var message: String

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            // `google_email` is always present, null when the app sent no email.
            try container.encode(google_email, forKey: .google_email)
            try container.encode(scope, forKey: .scope)
            try container.encode(account_switch, forKey: .account_switch)
            try container.encode(message, forKey: .message)
        }

        enum CodingKeys: String, CodingKey { case google_email, scope, account_switch, message }
    }

    var message: String
    var data: Data
}
