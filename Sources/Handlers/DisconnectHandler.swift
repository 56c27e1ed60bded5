#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PayPulseCoding
import PayPulseDomain
import PayPulsePorts
import PayPulseRuntime

/// `DELETE /v1/auth/gmail-tokens`: revokes the grant at Google (best effort) and deletes
/// the token set with a recovery window; a later store-tokens reconnects.
package struct DisconnectHandler: APIRouteHandler {
    let guardian: RequestGuard
    let vault: TokenVault
    let google: any GoogleOAuth
    let recoveryWindowDays: Int

    /// Creates the handler.
    package init(guardian: RequestGuard, vault: TokenVault, google: any GoogleOAuth, recoveryWindowDays: Int) {
        self.guardian = guardian
        self.vault = vault
        self.google = google
        self.recoveryWindowDays = recoveryWindowDays
    }

    package func respond(to request: APIRequest, context: InvocationContext) async throws(APIError) -> APIResponse {
        let user = try await guardian.admit(request, method: "DELETE", logger: context.logger)
        var logger = context.logger
        logger[metadataKey: "user_id"] = "\(user.userID)"
        let stored: TokenVault.Stored
        do {
            guard let current = try await vault.current(of: user.userID) else {
                throw APIError.notFound("No Gmail account is connected.")
            }
            stored = current
        } catch let error as APIError {
            throw error
        } catch {
            throw storeFailure(error, logger: logger)
        }

        // Revoke first: if the delete then fails, a retry finds the grant and finishes.
        let revoked = await revokeAtGoogle(stored.tokenSet, logger: logger)
        do {
            try await vault.disconnect(user.userID, recoveryWindowDays: recoveryWindowDays)
        } catch let error as StoreError where error == .scheduledForDeletion {
            // We read it live a moment ago: the deletion is done, by our own retried
            // request whose first answer was lost, or by a concurrent disconnect.
            logger.info("grant already scheduled for deletion; disconnect done")
        } catch let error as StoreError where error == .notFound {
            throw APIError.notFound("No Gmail account is connected.")
        } catch {
            throw storeFailure(error, logger: logger)
        }
        logger.info("gmail disconnected", metadata: ["revoked_at_google": "\(revoked)", "recovery_days": "\(recoveryWindowDays)"])
        return .json(status: 200, DisconnectReply(
            message: "Gmail account disconnected",
            data: .init(google_email: stored.tokenSet.googleEmail, revoked_at_google: revoked)
        ).jsonValue)
    }

    /// Best effort: a Google failure is logged and reported, never blocks the disconnect.
    private func revokeAtGoogle(_ set: GmailTokenSet, logger: Logger) async -> Bool {
        // Revoking the refresh token revokes the grant; the access token is the fallback.
        let token = set.refreshToken ?? set.accessToken
        do {
            try await google.revoke(token: token)
            return true
        } catch {
            logger.warning("revoke at Google failed; disconnecting anyway", metadata: ["google": "\(error)"])
            return false
        }
    }

    private func storeFailure(_ error: any Error, logger: Logger) -> APIError {
        logger.error("disconnect failed", metadata: ["error": "\(error)"])
        return (error as? StoreError).map { APIError(storeError: $0, writing: true) } ?? .internalError
    }
}

/// The 200 body.
struct DisconnectReply {
    struct Data {
        var google_email: String?
        var revoked_at_google: Bool
    }

    var message: String
    var data: Data

    /// The document: `google_email` is always present, null when none was stored.
    var jsonValue: JSONValue {
        .object([
            "message": .string(message),
            "data": .object([
                "google_email": data.google_email.map(JSONValue.string) ?? .null, "revoked_at_google": .bool(data.revoked_at_google),
            ]),
        ])
    }
}
