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

/// `POST /v1/auth/gmail-tokens`: stores the token set the app got from Google Sign-In.
///
/// A body with a refresh token is proven first (``GrantVerifier``): what is stored and
/// answered (account, scopes, expiry) is Google's word, and the body's `email` and `scope`
/// are only hints. Google's refusals answer 400 and store nothing; a fault of our own
/// client answers 503; Google unreachable stores the set unverified (201). Each well-formed
/// post is counted against the user's allowance first (``RequestQuota``): beyond it, 429 with
/// `Retry-After`, before Google or the store sees anything. A count that cannot be kept is
/// an EMF metric (``quotaFailureLine(function:timestamp:)``) with an alarm, not only a log line.
package struct StoreTokensHandler: APIRouteHandler {
    /// The `Function` dimension of its metrics.
    package static let functionName = "store-tokens"

    let guardian: RequestGuard
    let quota: any RequestQuota
    let vault: TokenVault
    let verifier: GrantVerifier
    let metrics: any MetricsSink
    let now: @Sendable () -> Date

    /// Creates the handler.
    /// - Parameters:
    ///   - metrics: where a post the allowance could not count is reported.
    ///   - now: The clock posts are counted by; tests pass a fake one.
    package init(
        guardian: RequestGuard, quota: any RequestQuota, vault: TokenVault, verifier: GrantVerifier, metrics: any MetricsSink,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.guardian = guardian
        self.quota = quota
        self.vault = vault
        self.verifier = verifier
        self.metrics = metrics
        self.now = now
    }

    /// One EMF line counting one post the allowance could not count (`QuotaFailed`, namespace
    /// `PayPulse/StoreTokens`, dimension `Function`): its table missing, refusing us, or unreachable.
    package static func quotaFailureLine(function: String = functionName, timestamp: Date) -> String {
        EmbeddedMetricLine.line(
            namespace: "PayPulse/StoreTokens", dimensions: [("Function", function)], metrics: [EmbeddedMetricLine.Metric("QuotaFailed", 1)],
            timestamp: timestamp
        )
    }

    package func respond(to request: APIRequest, context: InvocationContext) async throws(APIError) -> APIResponse {
        let user = try await guardian.admit(request, method: "POST", logger: context.logger)
        var logger = context.logger
        logger[metadataKey: "user_id"] = "\(user.userID)"

        let sent = try StoreTokensBody.parse(body: request.body, contentType: request.headers["content-type"])
        try await count(user.userID.rawValue, logger: logger)
        let incoming = try await verified(sent, logger: logger)
        // Nothing is stored without a scope that reads Gmail: the app asks for it first.
        if let scopes = incoming.scopes, !GmailScopes.canRead(scopes) {
            logger.info("store-tokens refused: no Gmail read scope granted", metadata: ["verified": "\(incoming.verified)"])
            throw .missingScope(GmailScopes.readonly)
        }

        let result: TokenVault.StoreResult
        do {
            result = try await vault.storeHonouringGoogle(incoming, for: user.userID) { error in
                logger.error("Google's word on the account could not be read after the store; the refresh run applies it", metadata: [
                    "error": "\(error)",
                ])
            }
        } catch let overruled as GoogleWordOverruled {
            // Google spoke after it proved these tokens (its event came while this write was
            // in flight): what it said stands, as if Google had refused the proof.
            logger.info("store-tokens refused: Google's newer word on the account", metadata: ["status": "\(overruled.status?.rawValue ?? "deleted")"])
            throw .invalidGrant
        } catch let error as StoreError {
            logger.error("store-tokens failed", metadata: ["error": "\(error)"])
            throw APIError(storeError: error, writing: true)
        } catch {
            logger.error("store-tokens failed", metadata: ["error": "\(type(of: error))"])
            throw .internalError
        }
        logger.info("gmail tokens stored", metadata: [
            "outcome": "\(result.outcome.rawValue)", "refreshable": "\(result.tokenSet.isRefreshable)",
            "verified": "\(result.tokenSet.verified)",
        ])
        return .json(status: 201, StoreTokensReply(
            message: "Gmail OAuth tokens stored successfully!",
            data: .init(
                google_email: result.tokenSet.googleEmail, scope: result.tokenSet.scope,
                account_switch: result.outcome == .accountSwitched, message: result.outcome.message
            )
        ).jsonValue)
    }
}

extension StoreTokensHandler {
    /// Takes one post of `user`'s allowance, or refuses the post with 429. A count that cannot
    /// be read or written lets the post through: the allowance guards Google and the store
    /// against one user's flood, and must not take every user's connecting down with it. It
    /// is counted in a metric whose alarm says the deployment runs without its limit.
    private func count(_ user: String, logger: Logger) async throws(APIError) {
        let decision: QuotaDecision
        do {
            // One id per post, drawn here: the store's retries of its write resend it, and find it if the write landed unheard.
            decision = try await quota.take(for: user, at: now().timeIntervalSince1970, id: QuotaUseID.random())
        } catch {
            logger.error("store-tokens not counted: the request quota could not be read or written", metadata: ["error": "\(error)"])
            metrics.emit(Self.quotaFailureLine(timestamp: now()))
            return
        }
        if case .exhausted(let retryAfter) = decision {
            logger.warning("store-tokens refused: the user's posts per minute are spent", metadata: ["retry_after": "\(retryAfter)"])
            throw .tooManyRequests(retryAfter: retryAfter)
        }
    }

    /// Google's answer for a body with a refresh token; the body as sent otherwise.
    private func verified(_ sent: IncomingTokens, logger: Logger) async throws(APIError) -> IncomingTokens {
        guard sent.refreshToken != nil else { return sent }
        do {
            let result = try await verifier.verify(sent, logger: logger)
            if let reason = result.reason {
                logger.warning("Google could not verify the grant; storing it unverified for the next refresh run", metadata: ["google": "\(reason)"])
            }
            return result.tokens
        } catch {
            switch error {
            case .invalidGrant:
                logger.info("store-tokens refused: Google answered invalid_grant")
                throw .invalidGrant
            case .foreignClient:
                logger.info("store-tokens refused: the tokens were issued to another OAuth client")
                throw .foreignClient
            case .clientBroken(let reason):
                logger.critical("Google refuses our OAuth client; every connect fails until it is fixed", metadata: ["reason": "\(reason)"])
                throw .clientUnavailable
            case .unavailable(let reason):
                logger.error("store-tokens could not verify the grant", metadata: ["reason": "\(reason)"])
                throw .upstreamUnavailable
            }
        }
    }
}

/// The 201 body of the reference contract.
struct StoreTokensReply {
    struct Data {
        var google_email: String?
        var scope: String
        var account_switch: Bool
        var message: String
    }

    var message: String
    var data: Data

    /// The document: `google_email` is always present, null when the app sent no email.
    var jsonValue: JSONValue {
        .object([
            "message": .string(message),
            "data": .object([
                "google_email": data.google_email.map(JSONValue.string) ?? .null, "scope": .string(data.scope),
                "account_switch": .bool(data.account_switch), "message": .string(data.message),
            ]),
        ])
    }
}
