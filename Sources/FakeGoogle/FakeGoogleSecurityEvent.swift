import Crypto
import Foundation

/// One event the fake Google's RISC transmitter sends: its type and what its `events`
/// member carries, in the shapes Google's Cross-Account Protection guide shows.
package struct FakeGoogleSecurityEvent: Sendable, Equatable {
    /// An event type, by the last segment of its URI.
    package enum EventType: String, Sendable, CaseIterable {
        case sessionsRevoked = "sessions-revoked"
        case accountDisabled = "account-disabled"
        case accountEnabled = "account-enabled"
        case accountPurged = "account-purged"
        case accountCredentialChangeRequired = "account-credential-change-required"
        case verification
        case tokensRevoked = "tokens-revoked"
        case tokenRevoked = "token-revoked"

        /// The full URI: the two OAuth types under `secevent/oauth/`, the rest under `secevent/risc/`.
        package var uri: String {
            switch self {
            case .tokensRevoked, .tokenRevoked: "https://schemas.openid.net/secevent/oauth/event-type/" + rawValue
            default: "https://schemas.openid.net/secevent/risc/event-type/" + rawValue
            }
        }
    }

    /// How `token-revoked` names the refresh token (`token_identifier_alg`).
    package enum TokenIdentifierAlgorithm: String, Sendable, CaseIterable {
        /// The token's first 16 characters.
        case prefix
        /// Base64 of SHA-512 of SHA-512 of the token.
        case hashBase64SHA512SHA512 = "hash_base64_sha512_sha512"

        /// The identifier of `token` under this algorithm.
        package func identifier(of token: String) -> String {
            switch self {
            case .prefix: String(token.prefix(16))
            case .hashBase64SHA512SHA512: Data(SHA512.hash(data: Data(SHA512.hash(data: Data(token.utf8))))).base64EncodedString()
            }
        }
    }

    /// Whom the event is about.
    package enum Subject: Sendable, Equatable {
        /// `{"subject_type": "iss-sub", "iss", "sub"}`: a Google account.
        case account(sub: String)
        /// `{"subject_type": "oauth_token", "token_type": "refresh_token", "token_identifier_alg", "token"}`.
        case refreshToken(String, algorithm: TokenIdentifierAlgorithm)
        /// No subject (a `verification` event carries only its `state`).
        case none
    }

    /// The type.
    package var type: EventType
    /// The subject.
    package var subject: Subject
    /// `account-disabled`'s `reason` (`hijacking`, `bulk-account`), if any.
    package var reason: String?
    /// `verification`'s `state`.
    package var state: String?

    /// An event about a Google account, or (for `token-revoked`) about one refresh token.
    /// - Parameters:
    ///   - type: The event type.
    ///   - subject: Whom it concerns.
    ///   - reason: `account-disabled`'s reason, if any.
    ///   - state: `verification`'s state, if any.
    package init(_ type: EventType, subject: Subject, reason: String? = nil, state: String? = nil) {
        self.type = type
        self.subject = subject
        self.reason = reason
        self.state = state
    }

    /// The `verification` event that answers `stream:verify` with `state`.
    package static func verification(state: String) -> FakeGoogleSecurityEvent {
        FakeGoogleSecurityEvent(.verification, subject: .none, state: state)
    }

    /// The member of the token's `events` claim: type URI to payload. The refresh token
    /// appears only as its identifier, never in the clear.
    func claim(issuer: String) -> [String: any Sendable] {
        var payload: [String: any Sendable] = [:]
        switch subject {
        case .account(let sub): payload["subject"] = ["subject_type": "iss-sub", "iss": issuer, "sub": sub]
        case .refreshToken(let token, let algorithm):
            payload["subject"] = [
                "subject_type": "oauth_token", "token_type": "refresh_token", "token_identifier_alg": algorithm.rawValue,
                "token": algorithm.identifier(of: token),
            ]
        case .none: break
        }
        if let reason { payload["reason"] = reason }
        if let state { payload["state"] = state }
        return [type.uri: payload]
    }
}
