import PayPulseCoding

/// Whom a security event concerns: a Google account, or one OAuth token of it.
///
/// Read tolerantly, because Google's shapes vary between its guide, its live stream and the
/// RISC drafts: the members sit in the event's `subject` object, or (as Google's table lists
/// `token-revoked`'s) in the event itself beside a `subject_type`; the type is `subject_type`
/// or, as RISC draft 02 and RFC 9493 write it, `format`; `iss-sub` and `iss_sub` are one
/// type. A subject that is there but cannot be read this way is ``unreadable``: the token is
/// still valid (Google did send it; refusing it would only make Google redeliver it), and
/// the caller acts on no grant for that event.
package enum SecurityEventSubject: Sendable, Equatable {
    /// A Google account (`subject_type` `iss-sub` or `id_token_claims`, or none with a `sub`).
    case googleAccount(GoogleAccountSubject)
    /// One OAuth token (`subject_type` `oauth_token`): `token-revoked`'s subject.
    case oauthToken(OAuthTokenSubject)
    /// The event names no subject (as `verification` does).
    case absent
    /// A subject of another type (`email`, `phone`, …) or with a required member missing
    /// or mistyped.
    case unreadable

    /// The subject of one event's payload.
    init(event: [String: JSONValue]) {
        let fields: [String: JSONValue]
        if let subject = event["subject"] {
            guard case .object(let members) = subject else {
                self = .unreadable
                return
            }
            fields = members
        } else if event["subject_type"] != nil || event["format"] != nil {
            fields = event
        } else {
            self = .absent
            return
        }
        let type: String?
        switch fields["subject_type"] ?? fields["format"] {
        case nil: type = nil
        case .string(let value)?: type = value
        default:
            self = .unreadable
            return
        }
        switch type {
        case "iss-sub"?, "iss_sub"?, "id_token_claims"?, nil:
            guard let subject = fields["sub"]?.stringValue, !subject.isEmpty else {
                self = .unreadable
                return
            }
            self = .googleAccount(GoogleAccountSubject(subject: subject, issuer: fields["iss"]?.stringValue, email: fields["email"]?.stringValue))
        case "oauth_token"?:
            guard let algorithm = fields["token_identifier_alg"]?.stringValue.flatMap(OAuthTokenSubject.IdentifierAlgorithm.init(rawValue:)),
                let identifier = fields["token"]?.stringValue, !identifier.isEmpty
            else {
                self = .unreadable
                return
            }
            self = .oauthToken(OAuthTokenSubject(tokenType: fields["token_type"]?.stringValue, identifierAlgorithm: algorithm, identifier: identifier))
        default:
            self = .unreadable
        }
    }
}

/// A Google account named by its issuer and `sub` (the id ID tokens carry).
package struct GoogleAccountSubject: Sendable, Equatable {
    /// `sub`: the Google account's stable id; grants are found by it.
    package var subject: String
    /// `iss` of the subject (`https://accounts.google.com/`), if given.
    package var issuer: String?
    /// `email`, which `id_token_claims` subjects may add.
    package var email: String?

    /// Creates a subject.
    /// - Parameters:
    ///   - subject: The Google `sub`.
    ///   - issuer: Its issuer, if given.
    ///   - email: The address, if given.
    package init(subject: String, issuer: String? = nil, email: String? = nil) {
        self.subject = subject
        self.issuer = issuer
        self.email = email
    }
}

/// One OAuth token of ours that Google revoked, named by an identifier, never the token.
///
/// The identifier is a piece (``IdentifierAlgorithm/prefix``) or a digest of a refresh
/// token: its textual and reflected forms leave it out, so no log line carries it.
package struct OAuthTokenSubject: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// How ``identifier`` was made from the token (`token_identifier_alg`).
    package enum IdentifierAlgorithm: String, Sendable, CaseIterable {
        /// The token's first 16 characters.
        case prefix
        /// Base64 of SHA-512 of SHA-512 of the token.
        case hashBase64SHA512SHA512 = "hash_base64_sha512_sha512"
    }

    /// `token_type`: `refresh_token` from Google; `nil` when not given.
    package var tokenType: String?
    /// How the identifier was made.
    package var identifierAlgorithm: IdentifierAlgorithm
    /// `token`: the identifier itself.
    package var identifier: String

    /// Creates a subject.
    /// - Parameters:
    ///   - tokenType: `token_type`, if given.
    ///   - identifierAlgorithm: `token_identifier_alg`.
    ///   - identifier: `token`.
    package init(tokenType: String?, identifierAlgorithm: IdentifierAlgorithm, identifier: String) {
        self.tokenType = tokenType
        self.identifierAlgorithm = identifierAlgorithm
        self.identifier = identifier
    }

    /// The type and algorithm; the identifier redacted.
    package var description: String {
        "OAuthTokenSubject(tokenType: \(tokenType ?? "nil"), identifierAlgorithm: \(identifierAlgorithm.rawValue), identifier: <redacted>)"
    }

    /// The same redacted text as ``description``.
    package var debugDescription: String { description }

    /// A mirror without the identifier, so `dump(_:)` does not print it either.
    package var customMirror: Mirror {
        Mirror(self, children: [("tokenType", tokenType as Any), ("identifierAlgorithm", identifierAlgorithm), ("identifier", "<redacted>")])
    }
}
