/// A call to the fake's RISC management API as it arrived, with the fake's verdict, so a
/// test can check what the client sent (the body's shape, the token) and why a call failed.
public struct FakeGoogleRISCRequest: Sendable {
    /// The method, e.g. `POST`.
    public var method: String
    /// The call below the API base, e.g. `stream:update` or `stream/status`.
    public var call: String
    /// The `Content-Type` header, if any.
    public var contentType: String?
    /// The bearer token sent (the service account's self-signed JWT), if any.
    public var bearerToken: String?
    /// The body as sent.
    public var body: String
    /// The status the fake answered.
    public var status: Int = 0
    /// Why the fake refused the call (a failed token check names the claim); `nil` when it
    /// answered 2xx.
    public var refusal: String?
}
