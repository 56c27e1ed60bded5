import PayPulseDomain

/// What a cell watches: a user's grant (wherever the bench's store keeps it) or a secret of
/// the configuration (the client ID, in Secrets Manager on every store).
enum Watched: Sendable {
    case grant(UserID)
    case secret(String)
}
