/// Who the request is from: the verified `sub` and, when the token carries them, the
/// `name` and `email` claims.
public struct AuthenticatedUser: Sendable, Equatable {
    /// The verified `sub`.
    public var userID: UserID
    /// The `name` claim, if it is a string.
    public var name: String?
    /// The `email` claim, if it is a string.
    public var email: String?

    /// Creates a user.
    /// - Parameters:
    ///   - userID: The verified `sub`.
    ///   - name: The `name` claim, if any.
    ///   - email: The `email` claim, if any.
    public init(userID: UserID, name: String? = nil, email: String? = nil) {
        self.userID = userID
        self.name = name
        self.email = email
    }
}
