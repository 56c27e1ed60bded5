/// Which of Google's OAuth endpoints a call went to; named in logs instead of the URL.
enum GoogleEndpoint: String, Sendable {
    /// `https://oauth2.googleapis.com/token`.
    case token
    /// `https://oauth2.googleapis.com/revoke`.
    case revoke
}
