import Logging
import PayPulseCoding
import PayPulseDomain
import PayPulseRuntime

/// The `fresh-token` function: invoked directly (Lambda Invoke API, IAM being the gate) by
/// PayPulse's own Gmail readers, never through the public API.
///
/// Input `{"user_id": "..."}`. Output `{"access_token", "expires_at", "scope",
/// "google_email"}` when connected; otherwise `{"error": code, "message"}` with
/// `not_connected`, `revoked`, `rejected`, `disabled`, `upstream_unavailable` or
/// `invalid_request`: the caller reads the code, the invocation itself never fails.
package struct FreshTokenHandler: Sendable {
    let tokens: FreshTokens

    /// Creates the handler over a per-process token source.
    package init(tokens: FreshTokens) {
        self.tokens = tokens
    }

    /// Answers one invocation's payload; never throws.
    package func handle(_ payload: [UInt8], context: InvocationContext) async -> [UInt8] {
        guard let object = (try? JSONBodyParser.parse(payload))?.objectValue, let raw = object["user_id"]?.stringValue else {
            return Self.failure("invalid_request", "The payload must be a JSON object with a string \"user_id\".")
        }
        guard let user = UserID(raw) else {
            return Self.failure("invalid_request", "\"user_id\" is not a valid user id.")
        }
        var logger = context.logger
        logger[metadataKey: "user_id"] = "\(user)"
        do {
            let set = try await tokens.tokenSet(for: user, logger: logger)
            logger.info("fresh token served", metadata: ["expires_at": "\(RFC3339.string(from: set.expiresAt))"])
            return (try? JSONCoding.encode(Answer(set))) ?? Self.failure("upstream_unavailable", "The answer could not be encoded.")
        } catch let error as TokenRefresher.FreshTokenError {
            logger.info("no fresh token", metadata: ["reason": "\(error)"])
            return switch error {
            case .notConnected: Self.failure("not_connected", "No Gmail account is connected for this user.")
            case .revoked: Self.failure("revoked", "The user's Gmail grant was revoked; they must connect again.")
            case .rejected: Self.failure("rejected", "The stored grant belongs to another OAuth client; the user must connect again.")
            case .disabled: Self.failure("disabled", "Google has disabled the user's Google account; no token until Google enables it.")
            case .unavailable: Self.failure("upstream_unavailable", "Google or the token store is unavailable; try again shortly.")
            }
        } catch {
            // Our own client or configuration is broken: nothing the caller can fix, and
            // every user is affected, so it is critical.
            logger.critical("fresh token impossible: configuration", metadata: ["error": "\(error)"])
            return Self.failure("upstream_unavailable", "The token service cannot reach Google with its configuration; try again later.")
        }
    }

    private struct Answer: Encodable {
        var access_token: String
        var expires_at: String
        var scope: String
        var google_email: String?

        init(_ set: GmailTokenSet) {
            access_token = set.accessToken
            expires_at = RFC3339.string(from: set.expiresAt)
            scope = set.scope
            google_email = set.googleEmail
        }
    }

    private static func failure(_ code: String, _ message: String) -> [UInt8] {
        (try? JSONCoding.encode(["error": code, "message": message])) ?? Array(#"{"error":"upstream_unavailable"}"#.utf8)
    }
}
