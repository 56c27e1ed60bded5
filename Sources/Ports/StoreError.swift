/// A failure of a store's call (``GrantStore``, ``SecretStore``, ``UserDirectory``,
/// ``SecurityEventLedger``), with a stable code the domain can act on.
///
/// A struct over a private code (the async-http-client pattern): cases can be added later
/// without breaking callers that compare with the static members.
package struct StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: String, Hashable, Sendable {
        case notFound = "not_found"
        case alreadyExists = "already_exists"
        case scheduledForDeletion = "scheduled_for_deletion"
        case conflict
        case invalidRequest = "invalid_request"
        case accessDenied = "access_denied"
        case unavailable
        case corrupt
    }

    private let code: Code
    /// A readable explanation; never contains a secret value.
    package let message: String

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The stable machine code, e.g. `not_found`.
    package var codeName: String { code.rawValue }

    package var description: String { "\(code.rawValue): \(message)" }

    /// Equality by code only: `error == .conflict` reads naturally.
    package static func == (lhs: StoreError, rhs: StoreError) -> Bool { lhs.code == rhs.code }
    package func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// The grant, secret, version or stage does not exist.
    package static let notFound = StoreError(.notFound, "not found")
    /// The grant is already stored, or the secret's name, or the client request token with
    /// another value, is taken.
    package static let alreadyExists = StoreError(.alreadyExists, "already exists")
    /// The grant or secret is scheduled for deletion and must be restored first.
    package static let scheduledForDeletion = StoreError(.scheduledForDeletion, "scheduled for deletion")
    /// A compare-and-swap lost: the version read is no longer current (another write came
    /// first; for a stage move, `removeFrom` no longer holds the stage), and nothing was
    /// written. The default message still names the stage move the compare-and-swap once
    /// was; every adapter gives its conflicts a message of their own.
    package static let conflict = StoreError(.conflict, "the version no longer holds the stage")
    /// The store refused the request as malformed.
    package static let invalidRequest = StoreError(.invalidRequest, "invalid request")
    /// The caller may not do this.
    package static let accessDenied = StoreError(.accessDenied, "access denied")
    /// The store could not be reached or kept failing after retries. A write whose answer was
    /// lost may have landed all the same: the caller must not say nothing was changed.
    package static let unavailable = StoreError(.unavailable, "store unavailable")
    /// The store answered something we cannot read.
    package static let corrupt = StoreError(.corrupt, "unreadable store response")

    /// The same code with a more specific message.
    package func with(message: String) -> StoreError { StoreError(code, message) }
}
