/// Who a grant of ``FakeGoogleServer`` belongs to and how Google treats it beyond the
/// defaults: the account its `id_token` names, the OAuth client it was issued to, and
/// scripted events in its life.
package struct FakeGoogleAccount: Sendable, Equatable {
    /// How Google refuses a refresh token issued to another client (both are seen).
    package enum ForeignRefusal: Sendable, Equatable {
        /// 401 `{"error": "unauthorized_client", "error_description": "Unauthorized"}`.
        case unauthorizedClient
        /// 401 `{"error": "invalid_client", "error_description": "Unauthorized"}`.
        case invalidClient
    }

    /// `sub`: the account's stable id; `nil` lets the fake number it.
    package var subject: String?
    /// `email`; `nil` lets the fake name one after the subject.
    package var email: String?
    /// `email_verified`.
    package var emailVerified: Bool
    /// The client the grant was issued to: one of the fake's (a second client of ours) or
    /// any other (another project's); `nil` is the fake's first client.
    package var issuedTo: String?
    /// What Google answers when the grant belongs to another client.
    package var foreignRefusal: ForeignRefusal
    /// `expires_in` of the access tokens issued (Google says 3599).
    package var expiresIn: Int
    /// After this many successful refreshes the user revokes access in their account, and
    /// later refreshes get `invalid_grant`; `nil` never.
    package var refreshesBeforeRevocation: Int?
    /// The first this many refreshes of the grant get 503 (Google blinking at connect time).
    package var unavailableFor: Int

    /// Creates an account description; every default is Google's ordinary behaviour.
    package init(
        subject: String? = nil, email: String? = nil, emailVerified: Bool = true, issuedTo: String? = nil,
        foreignRefusal: ForeignRefusal = .unauthorizedClient, expiresIn: Int = 3599, refreshesBeforeRevocation: Int? = nil,
        unavailableFor: Int = 0
    ) {
        self.subject = subject
        self.email = email
        self.emailVerified = emailVerified
        self.issuedTo = issuedTo
        self.foreignRefusal = foreignRefusal
        self.expiresIn = expiresIn
        self.refreshesBeforeRevocation = refreshesBeforeRevocation
        self.unavailableFor = unavailableFor
    }
}
