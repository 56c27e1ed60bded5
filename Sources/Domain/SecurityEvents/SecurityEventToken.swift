#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseCoding

/// A verified Security Event Token (RFC 8417) from Google's Cross-Account Protection: what
/// ``SecurityEventVerifier/verify(_:now:)`` returns once signature, issuer, audience and
/// the required claims hold.
package struct SecurityEventToken: Sendable, Equatable {
    /// `jti`: unique per event in Google's stream; a redelivery carries the same one.
    package var jti: String
    /// `iat`: when Google issued the token (the event itself happened before).
    package var issuedAt: Date
    /// The events, ordered by type URI (a JSON object keeps no order). Google sends one.
    package var events: [SecurityEvent]

    /// Creates a token.
    /// - Parameters:
    ///   - jti: The token's id.
    ///   - issuedAt: Its `iat`.
    ///   - events: Its events.
    package init(jti: String, issuedAt: Date, events: [SecurityEvent]) {
        self.jti = jti
        self.issuedAt = issuedAt
        self.events = events
    }
}

/// One member of a token's `events` claim.
package struct SecurityEvent: Sendable, Equatable {
    /// What happened.
    package var type: SecurityEventType
    /// Whom it concerns; ``SecurityEventSubject/unreadable`` when Google wrote a shape this
    /// receiver does not know (the token stays valid; the caller acts on no grant).
    package var subject: SecurityEventSubject
    /// Why the account was disabled (`account-disabled` only); `nil` when Google says nothing.
    package var reason: AccountDisabledReason?
    /// The `state` a `verification` event echoes (what `stream:verify` was given).
    package var state: String?

    /// Creates an event.
    /// - Parameters:
    ///   - type: The event type.
    ///   - subject: Its subject.
    ///   - reason: `account-disabled`'s reason, if any.
    ///   - state: `verification`'s state, if any.
    package init(type: SecurityEventType, subject: SecurityEventSubject, reason: AccountDisabledReason? = nil, state: String? = nil) {
        self.type = type
        self.subject = subject
        self.reason = reason
        self.state = state
    }

    /// The events of a verified token's `events` claim.
    /// - Parameter events: The claim's members: type URI to payload.
    /// - Returns: The events, or `nil` when a payload is not a JSON object (RFC 8417 §2.2).
    static func parse(_ events: [String: JSONValue]) -> [SecurityEvent]? {
        var parsed: [SecurityEvent] = []
        for (uri, payload) in events.sorted(by: { $0.key < $1.key }) {
            guard case .object(let fields) = payload else { return nil }
            let type = SecurityEventType(uri: uri)
            parsed.append(SecurityEvent(
                type: type,
                subject: SecurityEventSubject(event: fields),
                // A mistyped attribute is read as absent: the event still happened.
                reason: type == .accountDisabled ? fields["reason"]?.stringValue.map(AccountDisabledReason.init(rawValue:)) : nil,
                state: type == .verification ? fields["state"]?.stringValue : nil
            ))
        }
        return parsed
    }
}

/// An event type URI: the RISC and OAuth events Google sends, or any other (a token with an
/// unknown type is still valid; the caller ignores the event).
package enum SecurityEventType: Sendable, Hashable {
    /// `risc/event-type/sessions-revoked`
    case sessionsRevoked
    /// `risc/event-type/account-disabled`, with a ``AccountDisabledReason``
    case accountDisabled
    /// `risc/event-type/account-enabled`
    case accountEnabled
    /// `risc/event-type/account-purged` (RISC 1.0; not in Google's supported list)
    case accountPurged
    /// `risc/event-type/account-credential-change-required`
    case accountCredentialChangeRequired
    /// `risc/event-type/verification`, the answer to `stream:verify`
    case verification
    /// `oauth/event-type/tokens-revoked`: every token of the account for our clients
    case tokensRevoked
    /// `oauth/event-type/token-revoked`: one token, named by an ``OAuthTokenSubject``
    case tokenRevoked
    /// Any other URI, as received.
    case other(String)

    private static let risc = "https://schemas.openid.net/secevent/risc/event-type/"
    private static let oauth = "https://schemas.openid.net/secevent/oauth/event-type/"
    private static let known: [Self] = [
        .sessionsRevoked, .accountDisabled, .accountEnabled, .accountPurged, .accountCredentialChangeRequired, .verification,
        .tokensRevoked, .tokenRevoked,
    ]

    /// The type a URI names; ``other(_:)`` for one not listed (compared exactly).
    package init(uri: String) {
        self = Self.known.first { $0.uri == uri } ?? .other(uri)
    }

    /// The type's URI.
    package var uri: String {
        switch self {
        case .sessionsRevoked: Self.risc + "sessions-revoked"
        case .accountDisabled: Self.risc + "account-disabled"
        case .accountEnabled: Self.risc + "account-enabled"
        case .accountPurged: Self.risc + "account-purged"
        case .accountCredentialChangeRequired: Self.risc + "account-credential-change-required"
        case .verification: Self.risc + "verification"
        case .tokensRevoked: Self.oauth + "tokens-revoked"
        case .tokenRevoked: Self.oauth + "token-revoked"
        case .other(let uri): uri
        }
    }
}

/// `account-disabled`'s `reason`.
package enum AccountDisabledReason: Sendable, Hashable {
    /// `hijacking`: Google thinks the account was taken over.
    case hijacking
    /// `bulk-account`: the account was made in bulk (a bot).
    case bulkAccount
    /// Another value, as received.
    case other(String)

    /// The reason a value names.
    package init(rawValue: String) {
        switch rawValue {
        case "hijacking": self = .hijacking
        case "bulk-account": self = .bulkAccount
        default: self = .other(rawValue)
        }
    }
}
